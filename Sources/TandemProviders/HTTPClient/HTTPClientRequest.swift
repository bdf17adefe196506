/// One HTTP request. Values are checked when sent (`HTTPClientError.invalidRequest`).
public struct HTTPClientRequest: Sendable {
    public var method: Method
    /// An absolute `http://` or `https://` URL; curl parses it, other schemes are refused.
    public var url: String
    /// Sent in order. A field with an empty value is sent empty (not dropped). Giving a field
    /// curl sets itself (`Host`, `Accept`, `Content-Type`) replaces curl's value.
    public var headers: [HTTPClientHeader]
    /// Sent with `Content-Length` for POST, PUT and PATCH (even when empty), and for any other
    /// method when non-empty. Ignored for HEAD. curl's default form content type is never sent.
    public var body: [UInt8]
    /// Total time for the transfer, including queueing for a connection; nil means the
    /// configuration's `defaultTimeout`. Must be positive.
    public var timeout: Duration?
    public var version: HTTPVersionPreference

    public init(method: Method = .get, url: String, headers: [HTTPClientHeader] = [],
                body: [UInt8] = [], timeout: Duration? = nil, version: HTTPVersionPreference = .http2) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.version = version
    }

    /// Why this request cannot be sent, or nil.
    var validationProblem: String? {
        if url.isEmpty || url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "URL is empty or contains a space or control character"
        }
        if let timeout, timeout <= .zero {
            return "timeout must be positive"
        }
        return headers.lazy.compactMap(\.requestValidationProblem).first
    }
}

extension HTTPClientRequest {
    /// A request method: an RFC 9110 token, case-sensitive (`GET` ≠ `get`).
    public struct Method: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        /// Nil unless `rawValue` is a non-empty token.
        public init?(rawValue: String) {
            guard !rawValue.isEmpty, rawValue.utf8.allSatisfy(HTTPToken.isTokenByte) else { return nil }
            self.rawValue = rawValue
        }

        private init(literal: String) { rawValue = literal }

        public static let get = Method(literal: "GET")
        public static let head = Method(literal: "HEAD")
        public static let post = Method(literal: "POST")
        public static let put = Method(literal: "PUT")
        public static let patch = Method(literal: "PATCH")
        public static let delete = Method(literal: "DELETE")
        public static let options = Method(literal: "OPTIONS")

        public var description: String { rawValue }

        /// Methods whose empty body is still announced with `Content-Length: 0`.
        var announcesEmptyBody: Bool { self == .post || self == .put || self == .patch }
    }
}

/// Which HTTP version to ask curl for.
public enum HTTPVersionPreference: Sendable, Hashable {
    /// HTTP/1.1 only, also over TLS (ALPN offers only `http/1.1`).
    case http1_1
    /// HTTP/2 over TLS, negotiated by ALPN, falling back to HTTP/1.1 if the server does not
    /// offer h2; plain `http://` URLs use HTTP/1.1 (`CURL_HTTP_VERSION_2TLS`).
    case http2
    /// HTTP/2 without negotiation, also on cleartext `http://` (h2c prior knowledge).
    /// Caution: curl 7.88.1 (Debian 12) cannot *reuse* a cleartext prior-knowledge connection
    /// ("Error in the HTTP2 framing layer", fixed in curl 8.0.0); use TLS where it matters.
    case http2PriorKnowledge
}
