/// One line of a JSON MESSAGES response: the outcome for one recipient of one message.
///
/// The handler builds these from `CMMessageEntry` values (accepted lines after the batch is committed).
public struct CMResponseLine: Sendable, Hashable {
    /// The recipient exactly as the sender wrote it.
    public var to: String
    public var accepted: Bool
    public var reference: String?
    /// SMS parts the message needs (0 is fine for a rejected line).
    public var parts: Int
    /// `messageDetails`: why the line was rejected; nil (JSON `null`) for accepted lines.
    public var details: String?
    /// `messageErrorCode`: `.ok` for accepted lines.
    public var errorCode: CMErrorCode
    /// Tandem's extra `messageId`; omitted from the JSON when nil.
    public var messageID: String?

    public init(to: String, accepted: Bool, reference: String?, parts: Int, details: String? = nil,
                errorCode: CMErrorCode = .ok, messageID: String? = nil) {
        self.to = to
        self.accepted = accepted
        self.reference = reference
        self.parts = parts
        self.details = details
        self.errorCode = errorCode
        self.messageID = messageID
    }

    /// An accepted line.
    public static func accepted(to: String, reference: String?, parts: Int, messageID: String?) -> CMResponseLine {
        CMResponseLine(to: to, accepted: true, reference: reference, parts: parts, messageID: messageID)
    }

    /// A rejected line carrying `error`'s code and details.
    public static func rejected(to: String, reference: String?, parts: Int, error: CMMessageError) -> CMResponseLine {
        CMResponseLine(to: to, accepted: false, reference: reference, parts: parts, details: error.details,
                       errorCode: error.code)
    }
}
