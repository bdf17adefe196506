/// A complete response: the final one, after any 1xx interim responses.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// The final response's header fields, names lower-cased, in order received. Interim (1xx)
    /// responses' fields are not included; trailer fields, if any, follow the header fields.
    public var headers: [HTTPClientHeader]
    public var body: [UInt8]
    /// The HTTP version the response arrived over.
    public var version: Version

    public init(status: Int, headers: [HTTPClientHeader], body: [UInt8], version: Version) {
        self.status = status
        self.headers = headers
        self.body = body
        self.version = version
    }

    /// The first value of header `name`, compared case-insensitively; nil if absent.
    public func header(_ name: String) -> String? {
        headers.firstValue(named: name)
    }

    /// Every value of header `name` (for repeated fields), compared case-insensitively.
    public func headers(named name: String) -> [String] {
        headers.allValues(named: name)
    }

    public enum Version: Sendable, Hashable {
        case http1_0
        case http1_1
        case http2
        case http3

        /// 1, 2 or 3.
        public var major: Int {
            switch self {
            case .http1_0, .http1_1: 1
            case .http2: 2
            case .http3: 3
            }
        }
    }
}
