/// One `msg` of a request, decoded or refused, with what the response lines need either way.
///
/// `recipients` and `reference` are filled even when `result` is a failure, so that the handler can write
/// one `Rejected` line per recipient the sender named.
public struct CMMessageEntry: Sendable, Hashable {
    /// Zero-based position in the request's `msg` array.
    public let index: Int
    /// The `to` values exactly as sent (untrimmed, unnormalised), in order; empty when `to` was missing or
    /// not readable.
    public let recipients: [String]
    /// The `reference` when it was a string, even an invalid one; nil otherwise.
    public let reference: String?
    public let result: Result<CMMessage, CMMessageError>

    public init(index: Int, recipients: [String], reference: String?, result: Result<CMMessage, CMMessageError>) {
        self.index = index
        self.recipients = recipients
        self.reference = reference
        self.result = result
    }
}
