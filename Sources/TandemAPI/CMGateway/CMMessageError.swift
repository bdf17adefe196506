/// Why one message (or one recipient of it) is refused while the others in the request go ahead:
/// a 3xx field error or a 4xx refusal, with a detail that names the field or the problem.
public struct CMMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: CMErrorCode
    public let details: String

    public init(code: CMErrorCode, details: String) {
        self.code = code
        self.details = details
    }

    /// 305 naming the field.
    static func field(_ details: String) -> CMMessageError { CMMessageError(code: .invalidField, details: details) }

    public var description: String { "\(code.rawValue) \(details)" }
}
