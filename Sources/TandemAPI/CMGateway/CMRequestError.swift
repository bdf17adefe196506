/// Why a whole MESSAGES request is refused before any message is looked at: not JSON / not well-formed
/// XML (202), no usable `msg` array (203), or, from the handler, authentication (101, 103).
///
/// `details` names the problem for the sender (it never echoes a product token).
public struct CMRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: CMErrorCode
    public let details: String

    public init(code: CMErrorCode, details: String) {
        self.code = code
        self.details = details
    }

    /// 202 with `details`.
    static func malformed(_ details: String) -> CMRequestError { CMRequestError(code: .malformedRequest, details: details) }

    /// 203 with `details`.
    static func messageArray(_ details: String) -> CMRequestError {
        CMRequestError(code: .messageArrayIncorrect, details: details)
    }

    public var description: String { "\(code.rawValue) \(details)" }
}
