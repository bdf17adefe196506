/// What the intake decided for each message of a request, in request order: what an adapter turns into
/// its reply.
public struct IntakeOutcome: Sendable, Hashable {
    public var messages: [MessageOutcome]

    public init(messages: [MessageOutcome]) { self.messages = messages }

    /// Whether any message or recipient was refused.
    public var hasRejection: Bool {
        messages.contains { message in
            switch message {
            case .rejected: true
            case .accepted(_, let recipients): recipients.contains { if case .rejected = $0 { true } else { false } }
            }
        }
    }
}

public enum MessageOutcome: Sendable, Hashable {
    /// Nothing of the message is stored.
    case rejected(MessageRejection)
    /// One outcome per recipient, in the command's order; `id` is stored only when at least one recipient
    /// was accepted.
    case accepted(id: GUID, recipients: [RecipientOutcome])
}

public enum RecipientOutcome: Sendable, Hashable {
    case accepted
    case rejected(RecipientRejection)
}

/// A reply as an adapter will send it (and as it is kept under an idempotency key, to be sent again).
public struct WireReply: Sendable, Hashable, Error {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]

    public init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}
