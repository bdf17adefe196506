/// An HTTP request as handed to a handler.
///
/// The body is complete (fully received and de-chunked) before a handler runs;
/// streaming bodies are NOT supported. Header values are decoded as UTF-8
/// (invalid bytes become U+FFFD).
public struct Request: Sendable {
    /// The request method. `HEAD` requests reach the `GET` route with `.HEAD` here.
    public let method: HTTPMethod
    /// The request-target exactly as received on the request line (path and
    /// query, NOT percent-decoded), e.g. `/v1/items?id=a%2Bb`.
    public let target: String
    /// The percent-decoded path, without the query (`+` is NOT turned into a space here).
    public let path: String
    /// Parameters parsed from the raw query.
    public let query: QueryParameters
    /// Request headers in the order received.
    public let headers: HTTPHeaders
    /// The complete request body (empty if none).
    public let body: [UInt8]
    /// Values of `{name}` segments of the matched route pattern, percent-decoded.
    public var pathParameters: [String: String]
    /// The peer's IP address as text (`127.0.0.1`, `::1`), if known. This is the
    /// TCP peer: `X-Forwarded-For` and the like are NOT consulted.
    public let remoteAddress: String?
    /// The matched route pattern, e.g. `/v1.0/deviceregistrations/{id}`; set by the server.
    public internal(set) var route: String?

    /// Creates a request, deriving `path` and `query` from `target` (useful for calling handlers in tests).
    public init(
        method: HTTPMethod,
        target: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        pathParameters: [String: String] = [:],
        remoteAddress: String? = nil,
        route: String? = nil
    ) {
        let parsed = RequestTarget(target)
        self.init(method: method, target: target, parsed: parsed, headers: headers, body: body,
                  pathParameters: pathParameters, remoteAddress: remoteAddress, route: route)
    }

    init(
        method: HTTPMethod,
        target: String,
        parsed: RequestTarget,
        headers: HTTPHeaders,
        body: [UInt8],
        pathParameters: [String: String],
        remoteAddress: String?,
        route: String?
    ) {
        self.method = method
        self.target = target
        self.path = parsed.path
        self.query = QueryParameters(rawQuery: parsed.rawQuery)
        self.headers = headers
        self.body = body
        self.pathParameters = pathParameters
        self.remoteAddress = remoteAddress
        self.route = route
    }
}

extension Request {
    /// The request-target with every `%XX` escape decoded, query included (`+` stays `+`): what a client
    /// that signs the target before percent-encoding it signed.
    public var decodedTarget: String { PercentDecoding.decode(target[...], plusIsSpace: false) }
}
