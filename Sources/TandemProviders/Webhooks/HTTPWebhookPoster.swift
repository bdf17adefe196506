import TandemCore

/// Posts status reports with the shared ``HTTPClient`` (HTTP/1.1 or HTTP/2, whatever the receiver
/// offers). A 2xx answer is delivered; any other answer or a transport error is a failure carrying the
/// status and, for 429/503, the receiver's `Retry-After` (seconds).
public struct HTTPWebhookPoster: WebhookPoster {
    private let client: HTTPClient
    private let timeout: Duration
    private let userAgent: String

    public init(client: HTTPClient, timeout: Duration, userAgent: String) {
        self.client = client
        self.timeout = timeout
        self.userAgent = userAgent
    }

    public func post(url: String, contentType: String, body: [UInt8]) async -> WebhookResult {
        let request = HTTPClientRequest(method: .post, url: url,
                                        headers: [HTTPClientHeader("Content-Type", contentType),
                                                  HTTPClientHeader("User-Agent", userAgent)],
                                        body: body, timeout: timeout, version: .http2)
        do {
            let response = try await client.send(request)
            if (200..<300).contains(response.status) { return .delivered(status: response.status) }
            let retryAfter = response.header("retry-after").flatMap { Int64($0.trimmingASCIISpaces()) }.map { Duration.seconds($0) }
            return .failed(reason: "HTTP \(response.status)", retryAfter: retryAfter)
        } catch {
            return .failed(reason: "\(error)", retryAfter: nil)
        }
    }
}
