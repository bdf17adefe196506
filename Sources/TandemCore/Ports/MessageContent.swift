/// What a sender asked to deliver: shared by every recipient of one `msg`.
public struct MessageContent: Sendable, Hashable, Codable {
    /// The message's GUID, shown to apps as `ID`.
    public let messageID: GUID
    /// `from`: an alphanumeric sender name or a number.
    public let sender: String
    public let body: String
    /// The sender's `reference`, echoed in status reports.
    public let reference: String?

    public init(messageID: GUID, sender: String, body: String, reference: String?) {
        self.messageID = messageID
        self.sender = sender
        self.body = body
        self.reference = reference
    }
}

extension GUID: TextCodable {}
