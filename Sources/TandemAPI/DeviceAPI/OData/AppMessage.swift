import TandemCore

/// One message as `GET /v1.0/messages` shows it to the app on a device: what the OData query filters,
/// orders and renders (``ODataQuery/apply(to:)``, ``ODataQuery/renderJSON(_:)``).
///
/// Not guaranteed: that `id` is unique across the list handed to the evaluator — the stable order and the
/// SQL equivalence both assume it is (the message GUID is unique per recipient in the store).
public struct AppMessage: Sendable, Hashable {
    /// `ID`: the message's GUID.
    public var id: GUID
    /// `UpdateID`: the handle the app echoes in `PUT /v1.0/messages`; unique for 24 hours only.
    public var updateID: Int64
    /// `Recipient`: the device's MSISDN.
    public var recipient: MSISDN
    /// `Sender`: an alphanumeric sender name or a number, as the sender gave it.
    public var sender: String
    /// `Body`: absent for messages whose body is not shown to apps.
    public var body: String?
    /// `DateTime`: when the message arrived at the platform.
    public var dateTime: Timestamp
    /// `Status`.
    public var status: AppMessageStatus

    public init(id: GUID, updateID: Int64, recipient: MSISDN, sender: String, body: String?,
                dateTime: Timestamp, status: AppMessageStatus) {
        self.id = id
        self.updateID = updateID
        self.recipient = recipient
        self.sender = sender
        self.body = body
        self.dateTime = dateTime
        self.status = status
    }
}
