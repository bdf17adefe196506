/// What operators look up across every account: the admin API's message search (`GET /admin/messages`).
///
/// Unlike ``MessageLedger`` it is not scoped to an account, so it belongs behind the admin token only.
/// Guaranteed: at most `limit` messages, newest first; a search by number returns only that number's
/// recipients of each message. Not guaranteed: that a recipient still waiting in a bulk message's spool is
/// found by its number (it has no delivery row yet; a search by id or reference lists it as queued).
public protocol MessageSearch: Sendable {
    func search(_ query: MessageQuery, limit: Int) async throws -> [FoundMessage]
}

/// One way to find messages.
public enum MessageQuery: Sendable, Hashable {
    /// The message with this id (at most one).
    case id(GUID)
    /// Every account's messages with this sender-chosen reference.
    case reference(String)
    /// Messages with a recipient at this number.
    case msisdn(MSISDN)
}

/// A message found by ``MessageSearch``, with the name of the account that sent it.
public struct FoundMessage: Sendable, Hashable {
    public let accountName: String
    public let message: MessageView
    /// The message's recipients in all (deliveries and queued), which may exceed those in `message`.
    public let recipientCount: Int

    public init(accountName: String, message: MessageView, recipientCount: Int) {
        self.accountName = accountName
        self.message = message
        self.recipientCount = recipientCount
    }
}
