import TandemCore

/// When a push provider retries a transient failure (APNs 429/5xx, FCM `QUOTA_EXCEEDED`/`UNAVAILABLE`/
/// `INTERNAL`, a transport error) and when it gives up.
///
/// Retry *n* (1-based) waits the provider's `Retry-After` when it gave one, else an exponential delay
/// with "equal jitter": half of `min(maxDelay, baseDelay·2ⁿ⁻¹)` fixed, the other half random. With the
/// defaults (0.5 s, 60 s) the fixed parts are 0.25, 0.5, 1, 2, 4 … 30 s. A retry is made only while
/// `attempts < maxAttempts` and `now + delay` is before the retry deadline (see
/// ``retryDeadline(for:from:providerMaximum:)``).
///
/// Not guaranteed: that a retry happens at the computed instant (sleeps never end early, but may end
/// late); that the provider did not deliver an attempt whose answer was lost (a push may arrive twice).
public struct PushRetryPolicy: Sendable, Hashable {
    /// Attempts in total, the first included (at least 1; 1 means never retry).
    public var maxAttempts: Int
    /// The scale of the exponential delay (positive).
    public var baseDelay: Duration
    /// The largest computed delay (at least `baseDelay`). A `Retry-After` may be longer; the deadline
    /// still applies to it.
    public var maxDelay: Duration

    public init(maxAttempts: Int = 8, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(60)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The first problem with these values, or nil.
    public var validationProblem: String? {
        if maxAttempts < 1 { return "maxAttempts must be at least 1" }
        if baseDelay <= .zero { return "baseDelay must be positive" }
        if maxDelay < baseDelay { return "maxDelay must not be below baseDelay" }
        return nil
    }

    /// The wait before retry number `retry` (1 for the first retry). `unitRandom` is a draw from
    /// `0..<1`; `retryAfter` is the provider's own hint, taken as it is (never shortened).
    public func delay(beforeRetry retry: Int, retryAfter: Duration?, unitRandom: Double) -> Duration {
        if let retryAfter { return max(retryAfter, .zero) }
        var exponential = baseDelay
        var step = 1
        while step < retry && exponential < maxDelay {
            exponential *= 2
            step += 1
        }
        let capped = min(exponential, maxDelay)
        let half = capped / 2
        return half + half * min(max(unitRandom, 0), 1)
    }

    /// The instant after which a push is not worth retrying: the earlier of the end of its push TTL and
    /// the end of the delivery's lifetime, both counted from `start` (the first attempt);
    /// `.providerMaximum` counts as `providerMaximum`.
    public static func retryDeadline(for policy: Policy, from start: Timestamp, providerMaximum: Duration) -> Timestamp {
        let ttl = policy.pushTTL.duration.map { min($0, providerMaximum) } ?? providerMaximum
        let lifetime = policy.lifetime.duration ?? providerMaximum
        return start + max(min(ttl, lifetime), .zero)
    }

    /// A `Retry-After` header in whole seconds; nil when absent or not a number (the HTTP-date form is
    /// used by neither APNs nor FCM and is ignored).
    public static func retryAfter(_ header: String?) -> Duration? {
        guard let header, let seconds = Int64(header.trimmingASCIISpaces()), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
