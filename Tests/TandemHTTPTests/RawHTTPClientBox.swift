/// Moves a client between test threads; only one thread uses it at a time.
final class RawHTTPClientBox: @unchecked Sendable {
    let client: RawHTTPClient
    init(_ client: RawHTTPClient) { self.client = client }
}
