/// A fixed-budget rate limit per key over a sliding window: at most `limit` events per key in any
/// `window`, e.g. 3 PIN SMS per MSISDN per hour (abuse limits against SMS pumping and brute force).
///
/// Pure: the caller passes `now`, and the limiter keeps the times of the events it allowed (at most
/// `limit` per key). A refusal says when the oldest event leaves the window — the `Retry-After`.
/// Keys with no event inside the window are forgotten by `purge(now:)`. Not thread-safe by itself: the
/// shell wraps it in a lock.
public struct RateLimiter: Sendable {
    public let limit: Int
    public let window: Duration
    private var events: [String: [Timestamp]] = [:]

    public init(limit: Int, window: Duration) {
        precondition(limit > 0, "a limit allows at least one event")
        self.limit = limit
        self.window = window
    }

    public enum Decision: Sendable, Hashable {
        case allowed
        /// Refused; a request succeeds again after this long.
        case limited(retryAfter: Duration)
    }

    /// Records an event for `key` at `now` if the budget allows it.
    public mutating func attempt(_ key: String, now: Timestamp) -> Decision {
        let decision = check(key, now: now)
        if decision == .allowed { events[key, default: []].append(now) }
        return decision
    }

    /// What `attempt` would answer, without recording anything.
    public func check(_ key: String, now: Timestamp) -> Decision {
        let recent = (events[key] ?? []).filter { now - $0 < window }
        guard recent.count >= limit, let oldest = recent.min() else { return .allowed }
        return .limited(retryAfter: (oldest + window) - now)
    }

    /// Forgets events older than the window (and keys left with none).
    public mutating func purge(now: Timestamp) {
        events = events.compactMapValues { times in
            let recent = times.filter { now - $0 < window }
            return recent.isEmpty ? nil : recent
        }
    }

    /// Keys currently tracked (for tests and metrics).
    public var trackedKeys: Int { events.count }
}
