/// One completed request, reported to `onRequestCompleted` exactly once per
/// request the server saw a request line for.
///
/// Requests rejected by libmicrohttpd itself before headers were complete
/// (malformed request, request line or header block larger than the
/// connection memory) are reported with `method` empty and `status` 0, since
/// the server never learns what was answered. A request line that is too long
/// to be parsed at all is NOT reported.
public struct AccessRecord: Sendable {
    /// The method as received (also for unsupported methods such as `BREW`), or `""` if unknown.
    public let method: String
    /// The matched route pattern, or `"unmatched"`.
    public let route: String
    /// The raw request-target as received.
    public let target: String
    /// The status sent, or 0 if the request ended without a response being
    /// fully delivered (client went away, timeout, server stopped).
    public let status: Int
    /// Seconds from the request line being parsed to the request completing.
    public let durationSeconds: Double
    /// Request body bytes received (after de-chunking).
    public let requestBytes: Int
    /// Response body bytes queued. For `HEAD` this is the length of the body the
    /// handler produced, although libmicrohttpd does not send it.
    public let responseBytes: Int
    /// The peer IP address as text, if known.
    public let remoteAddress: String?

    public init(method: String, route: String, target: String, status: Int, durationSeconds: Double,
                requestBytes: Int, responseBytes: Int, remoteAddress: String?) {
        self.method = method
        self.route = route
        self.target = target
        self.status = status
        self.durationSeconds = durationSeconds
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
        self.remoteAddress = remoteAddress
    }
}
