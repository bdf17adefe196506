import TandemCore

/// What one attempt to push to one device came to, as the retry loop sees it.
public enum PushAttemptResult: Sendable, Hashable {
    /// A verdict: accepted, or rejected for good.
    case decided(PushVerdict)
    /// A temporary failure worth retrying (`retryAfter` is the provider's hint, if it gave one).
    case retry(reason: String, retryAfter: Duration?)
    /// Nothing was decided and nothing more will be tried: the task was cancelled or the client shut
    /// down. No verdict is reported for the device.
    case abandoned
}

extension PushAttemptResult {
    /// A failed request: retried unless the request itself is wrong, abandoned when the task was
    /// cancelled or the client shut down.
    init(transportFailure error: HTTPClientError) {
        switch error {
        case .cancelled, .shutdown:
            self = .abandoned
        case .invalidRequest, .invalidConfiguration, .initialisationFailed:
            self = .decided(.rejected(.other))
        case .connectFailed, .tls, .timeout, .responseTooLarge, .transport:
            self = .retry(reason: error.description, retryAfter: nil)
        }
    }
}
