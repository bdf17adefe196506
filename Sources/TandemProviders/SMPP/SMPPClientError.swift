/// Why an `SMPPClient` could not be created.
public enum SMPPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A setting is out of range; the text names it.
    case invalidSettings(String)
    /// The operating system refused a resource (a wake-up socket pair, a thread).
    case resourceUnavailable(String)

    public var description: String {
        switch self {
        case .invalidSettings(let problem): "invalid SMPP settings: \(problem)"
        case .resourceUnavailable(let problem): "SMPP client cannot start: \(problem)"
        }
    }
}
