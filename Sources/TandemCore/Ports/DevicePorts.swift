/// What the device API reads and writes: registrations, the messages an install may list, and the
/// deliveries its receipts name. Reads are short (indexed lookups), asynchronous (a server backend reads over a
/// socket) and see every committed write; writes return once committed.
public protocol DeviceRegistry: Sendable {
    func registration(_ device: DeviceID) async throws -> DeviceRegistration?
    /// ``registration(_:)`` when the backend can answer it without waiting (SQLite: its registration cache, else
    /// a page-cache read; a server backend: a cache it keeps current); nil when only the asynchronous read can.
    /// What a receipt, answered on the HTTP worker thread without a task, looks up first.
    func cachedRegistration(_ device: DeviceID) throws -> DeviceRegistration??

    /// Stores a new registration. A push token already held by another registration of the same app moves
    /// here (the other one loses it) in the same transaction.
    func create(_ registration: DeviceRegistration) async throws

    /// Reads the registration, lets `change` modify it, and stores the result — atomically: no other write
    /// to the registration comes between the read and the write. `change` must be pure (it may run on the
    /// store's writer thread). A push token taken by the change moves here as in ``create(_:)``. Returns
    /// nil, changing nothing, when there is no such registration.
    func update<T: Sendable>(_ device: DeviceID, _ change: @escaping @Sendable (inout DeviceRegistration) -> T) async throws -> T?

    /// Who may report receipts for the delivery with this key (its `UpdateID`); nil when there is none.
    /// (A receipt for a delivery in flight is checked by the scheduler, which holds it; this is for the others.)
    func receiptTarget(_ key: DeliveryKey) async throws -> ReceiptTarget?

    /// The messages pushed to `msisdn` for `app`, filtered, ordered and paged by `query` exactly as
    /// ``ODataQuery/apply(to:)`` would (the reference semantics); each backend translates the typed query itself.
    /// `query.top` nil means every message.
    func inbox(app: AppKey, msisdn: MSISDN, query: ODataQuery) async throws -> [InboxMessage]
}

extension DeviceRegistry {
    /// Never answered without waiting: callers take ``registration(_:)``.
    public func cachedRegistration(_ device: DeviceID) throws -> DeviceRegistration?? { nil }
}

/// What decides whether an install may acknowledge or read a delivery.
public struct ReceiptTarget: Sendable, Hashable {
    public let key: DeliveryKey
    /// The app the message was sent through; nil for a message sent without an app.
    public let app: AppKey?
    public let recipient: DeliveryRecipient
    public let isFinal: Bool
    /// When the message was accepted.
    public let createdAt: Timestamp

    public init(key: DeliveryKey, app: AppKey?, recipient: DeliveryRecipient, isFinal: Bool, createdAt: Timestamp) {
        self.key = key
        self.app = app
        self.recipient = recipient
        self.isFinal = isFinal
        self.createdAt = createdAt
    }
}

/// One message as an install's inbox lists it, and what the device API's OData evaluator filters, orders and
/// renders (`ODataQuery.apply(to:)`, `renderJSON`) — from the store or, in tests, built directly.
///
/// Not guaranteed: that `id` is unique across a list handed to the evaluator — its stable order and its
/// equivalence with the SQL translation assume it is (a message GUID is unique per recipient in the store).
public struct InboxMessage: Sendable, Hashable {
    public var id: GUID
    /// The delivery's key: the `UpdateID` receipts name.
    public var updateID: DeliveryKey
    public var recipient: MSISDN
    public var sender: String
    /// nil when the app must not see it (a withdrawn or expired OTP).
    public var body: String?
    /// When the message was accepted.
    public var dateTime: Timestamp
    /// The app-facing status (``AppMessageStatus``); `Read` shows as `Delivered` wherever it is compared or written.
    public var status: DeliveryStatus

    public init(id: GUID, updateID: DeliveryKey, recipient: MSISDN, sender: String, body: String?, dateTime: Timestamp,
                status: DeliveryStatus) {
        self.id = id
        self.updateID = updateID
        self.recipient = recipient
        self.sender = sender
        self.body = body
        self.dateTime = dateTime
        self.status = status
    }
}

/// A PIN on its way to a number, by SMS or voice call.
public struct PinMessage: Sendable, Hashable {
    public let msisdn: MSISDN
    public let pin: String
    /// The SMS sender (alphanumeric or a number).
    public let sender: String
    /// The SMS text, PIN included.
    public let text: String
    /// The device's language from its `User-Agent` (`en_US`), for a voice call; nil when unknown.
    public let language: String?

    public init(msisdn: MSISDN, pin: String, sender: String, text: String, language: String?) {
        self.msisdn = msisdn
        self.pin = pin
        self.sender = sender
        self.text = text
        self.language = language
    }
}

/// Why a PIN did not go out.
public struct PinDeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Sends verification PINs by SMS (SMPP, an HTTP SMS API, or a simulator). Returns once the SMSC took
/// the message. Never logs the PIN (simulators excepted: they stand in for the user's phone).
public protocol PinSender: Sendable {
    func sendPIN(_ message: PinMessage) async throws(PinDeliveryError)
}

/// Reads a verification PIN out in a voice call. Returns once the call was placed.
public protocol VoiceCaller: Sendable {
    func callPIN(_ message: PinMessage) async throws(PinDeliveryError)
}
