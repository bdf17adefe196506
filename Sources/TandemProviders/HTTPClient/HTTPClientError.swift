/// Why `HTTPClient.send(_:)` failed, or why a client could not be created.
///
/// Messages carry curl's own error text (`CURLOPT_ERRORBUFFER`, or `curl_easy_strerror`
/// when the buffer is empty). The mapping from `CURLcode` lives in exactly one place:
/// `HTTPClientError+Curl.swift`. An HTTP error status (4xx, 5xx) is *not* an error here:
/// it is a response.
public enum HTTPClientError: Error, Sendable, Hashable {
    /// A configuration value is out of range, or the CA file is unreadable (thrown by `init`).
    case invalidConfiguration(String)
    /// curl or the loop thread could not be set up (thrown by `init`).
    case initialisationFailed(String)
    /// The request was rejected before anything was sent: a malformed URL, an unsupported
    /// scheme, a header with a control character, a non-positive timeout.
    case invalidRequest(String)
    /// Name resolution or the TCP connection failed (refused, unreachable, unresolvable).
    case connectFailed(String)
    /// The TLS handshake failed, including certificate verification.
    case tls(String)
    /// The request's timeout (or the connect timeout) elapsed.
    case timeout
    /// The calling task was cancelled; the transfer has been removed from the multi handle.
    case cancelled
    /// The client was shut down (or deinitialised) before the request completed.
    case shutdown
    /// The response body exceeded the configured limit (in bytes); the transfer was aborted.
    case responseTooLarge(limit: Int)
    /// Any other curl failure: `code` is the `CURLcode` (or `CURLMcode` for a multi-handle failure).
    case transport(code: Int, message: String)
}

extension HTTPClientError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidConfiguration(let message): "invalid HTTP client configuration: \(message)"
        case .initialisationFailed(let message): "HTTP client initialisation failed: \(message)"
        case .invalidRequest(let message): "invalid HTTP request: \(message)"
        case .connectFailed(let message): "connect failed: \(message)"
        case .tls(let message): "TLS failed: \(message)"
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        case .shutdown: "HTTP client shut down"
        case .responseTooLarge(let limit): "response body larger than \(limit) bytes"
        case .transport(let code, let message): "transport error \(code): \(message)"
        }
    }
}
