/// What the sender-facing APIs read: accounts, apps and the registrations that turn an MSISDN into
/// devices. Reads are short (indexed lookups) and asynchronous (a server backend reads over a socket); they see
/// every committed write.
public protocol SenderDirectory: Sendable {
    /// Every account, disabled or not (a small table: senders, not recipients).
    func accounts() async throws -> [Account]
    func account(productToken: ProductToken) async throws -> Account?
    func app(key: AppKey) async throws -> App?
    /// The registrations of `app` for each of `msisdns` (numbers with none are absent from the result).
    func registrations(app: AppKey, msisdns: [MSISDN]) async throws -> [MSISDN: [Registration]]
    /// The account's app with this sender id (``App/senderID``).
    func app(account: ProductToken, senderID: String) async throws -> App?
    /// The registration with this device id, if it belongs to `app`.
    func registration(app: AppKey, device: DeviceID) async throws -> Registration?
    /// Whether `app`'s pushes render in TIBCO BWMI's managed shape when the sender asked for no presentation:
    /// the app trusts its BWMI devices' phones (``BWMIAppSettings/trustPhones``), so it is a BWMI app.
    func rendersBWMIPushes(app: AppKey) async throws -> Bool
    /// ``app(key:)`` when the backend can answer it without waiting (SQLite: a page-cache read; a server backend:
    /// from a cache it keeps current); nil when only the asynchronous read can. For the callers that answer on
    /// the HTTP worker thread without a task (the device API's signature check), which take the asynchronous
    /// read in a task only when this is nil.
    func cachedApp(key: AppKey) throws -> App??
}

extension SenderDirectory {
    /// No BWMI apps (directories without the BWMI tables).
    public func rendersBWMIPushes(app: AppKey) async throws -> Bool { false }
    /// Never answered without waiting: callers take ``app(key:)``.
    public func cachedApp(key: AppKey) throws -> App?? { nil }
}

/// Push tokens that senders address directly (SCG's `psh:` addresses) become registrations of their app,
/// so that one registry knows every token: a token a provider declares dead is invalid for every API.
public protocol PushAddressRegistry: Sendable {
    /// The registration of `app` that holds `token` (whatever created it), else a new one, pushable by
    /// address and never verified for a number.
    func addressedRegistration(app: AppKey, platform: Platform, token: PushToken, at: Timestamp) async throws -> Registration
}

/// What senders can look up about the messages they sent. Every call is scoped to one account: another
/// account's messages are never returned.
public protocol MessageLedger: Sendable {
    func message(account: ProductToken, id: GUID) async throws -> MessageView?
    /// The account's messages with this `reference`, oldest first.
    func messages(account: ProductToken, reference: String) async throws -> [MessageView]
}

/// One sent message as its sender sees it: what was asked, and each recipient's delivery so far.
public struct MessageView: Sendable, Hashable {
    public let id: GUID
    public let reference: String?
    public let sender: String
    public let messageType: AppMessageType
    public let appKey: AppKey?
    public let fallbackFor: GUID?
    public let createdAt: Timestamp
    public let recipients: [RecipientView]
    /// Accepted recipients still waiting in the message's spool (no delivery yet), in request order.
    public let queued: [MSISDN]
    /// The API it came through, and its API-specific fields (compact JSON), as ``SendCommand`` had them.
    public let api: String
    public let extra: String?
    public let body: String

    public init(id: GUID, reference: String?, sender: String, messageType: AppMessageType, appKey: AppKey?,
                fallbackFor: GUID?, createdAt: Timestamp, recipients: [RecipientView], queued: [MSISDN] = [],
                api: String = "cm", extra: String? = nil, body: String = "") {
        self.id = id
        self.reference = reference
        self.sender = sender
        self.messageType = messageType
        self.appKey = appKey
        self.fallbackFor = fallbackFor
        self.createdAt = createdAt
        self.recipients = recipients
        self.queued = queued
        self.api = api
        self.extra = extra
        self.body = body
    }
}

/// One recipient's delivery: its snapshot and its event log, oldest first.
public struct RecipientView: Sendable, Hashable {
    public let key: DeliveryKey
    public let recipient: DeliveryRecipient
    public let delivery: Delivery
    public let updatedAt: Timestamp
    public let events: [TimelineEvent]

    public init(key: DeliveryKey, recipient: DeliveryRecipient, delivery: Delivery, updatedAt: Timestamp, events: [TimelineEvent]) {
        self.key = key
        self.recipient = recipient
        self.delivery = delivery
        self.updatedAt = updatedAt
        self.events = events
    }
}

/// One entry of a delivery's event log (`delivery_events`).
public struct TimelineEvent: Sendable, Hashable {
    public let at: Timestamp
    public let kind: String
    public let detail: String

    public init(at: Timestamp, kind: String, detail: String) {
        self.at = at
        self.kind = kind
        self.detail = detail
    }
}

/// Idempotency keys held in the store, so that a key holds across requests, retries and processes: the first
/// request with a key claims it (a unique row, `status` 0 while its request is being processed), and its
/// reply completes the row in the same transaction as what it stored.
public protocol IdempotencyKeys: Sendable {
    /// Claims `(account, key)` for a request with `digest`, or returns the row that holds it already (a
    /// completed reply, or another request's claim: ``IdempotencyRecord/isPending``).
    func claimIdempotencyKey(account: ProductToken, key: String, digest: String, at: Timestamp) async throws -> IdempotencyClaimOutcome
    /// Takes over a claim left pending since `claimedAt` (its request's process died): false when the row
    /// changed meanwhile (completed, released or taken over by another).
    func takeOverIdempotencyKey(account: ProductToken, key: String, claimedAt: Timestamp, at: Timestamp) async throws -> Bool
    /// Removes a pending claim whose request stored nothing, so a retry starts afresh.
    func releaseIdempotencyKey(account: ProductToken, key: String) async throws
}

public enum IdempotencyClaimOutcome: Sendable, Hashable {
    case claimed
    case held(IdempotencyRecord)
}

extension IdempotencyRecord {
    /// A claim whose request has not stored its reply yet (`status` 0: no HTTP status is 0).
    public var isPending: Bool { status == 0 }
}
