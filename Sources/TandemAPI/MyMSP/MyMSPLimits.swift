import Synchronization
import TandemCore

/// The myMSP adapter's abuse limits and message quota (config `mymsp`): `subscribe` and `get` per client
/// address and per user — each request charges both budgets or neither — and notifications per user per
/// UTC day. Thread-safe; time comes from the caller. Not guaranteed: the quota across a restart (it is
/// counted in memory).
final class MyMSPLimits: Sendable {
    enum Budgeted: Sendable { case subscribe, get }

    private struct State {
        var subscribesPerClientIP: RateLimiter?
        var subscribesPerUser: RateLimiter?
        var getsPerClientIP: RateLimiter?
        var getsPerUser: RateLimiter?
        /// Per user: the UTC day (days since 1970) and the notifications made on it.
        var sent: [Int64: (day: Int64, count: Int)] = [:]
        var charges = 0
    }

    private let state: Mutex<State>
    private let messagesPerDay: Int?

    init(_ configuration: Configuration.MyMSP) {
        func limiter(_ budget: Configuration.Budget?) -> RateLimiter? {
            budget.map { RateLimiter(limit: $0.limit, window: $0.window) }
        }
        state = Mutex(State(subscribesPerClientIP: limiter(configuration.subscribesPerClientIP),
                            subscribesPerUser: limiter(configuration.subscribesPerUser),
                            getsPerClientIP: limiter(configuration.getsPerClientIP),
                            getsPerUser: limiter(configuration.getsPerUser)))
        messagesPerDay = configuration.messagesPerDay
    }

    /// Charges one request of `kind` to the client address and the user, or refuses it with the longest wait.
    func charge(_ kind: Budgeted, clientIP: String?, user: Int64, now: Timestamp) -> RateLimiter.Decision {
        state.withLock { state in
            state.charges += 1
            if state.charges % 10_000 == 0 {
                state.subscribesPerClientIP?.purge(now: now)
                state.subscribesPerUser?.purge(now: now)
                state.getsPerClientIP?.purge(now: now)
                state.getsPerUser?.purge(now: now)
            }
            let ip = clientIP ?? "unknown"
            let userKey = String(user)
            switch kind {
            case .subscribe:
                return Self.charge(&state.subscribesPerClientIP, ip, &state.subscribesPerUser, userKey, now: now)
            case .get:
                return Self.charge(&state.getsPerClientIP, ip, &state.getsPerUser, userKey, now: now)
            }
        }
    }

    private static func charge(_ first: inout RateLimiter?, _ firstKey: String, _ second: inout RateLimiter?, _ secondKey: String,
                               now: Timestamp) -> RateLimiter.Decision {
        let waits = [first?.check(firstKey, now: now), second?.check(secondKey, now: now)].compactMap { decision -> Duration? in
            if case .limited(let wait)? = decision { return wait }
            return nil
        }
        if let longest = waits.max() { return .limited(retryAfter: longest) }
        _ = first?.attempt(firstKey, now: now)
        _ = second?.attempt(secondKey, now: now)
        return .allowed
    }

    /// Whether the user may make another notification today (not charged).
    func quotaAllows(user: Int64, now: Timestamp) -> Bool {
        guard let messagesPerDay else { return true }
        let day = Self.day(now)
        return state.withLock { state in
            guard let sent = state.sent[user], sent.day == day else { return true }
            return sent.count < messagesPerDay
        }
    }

    /// Counts one notification made by the user.
    func recordSent(user: Int64, now: Timestamp) {
        guard messagesPerDay != nil else { return }
        let day = Self.day(now)
        state.withLock { state in
            if let sent = state.sent[user], sent.day == day {
                state.sent[user] = (day, sent.count + 1)
            } else {
                state.sent[user] = (day, 1)
            }
        }
    }

    private static func day(_ now: Timestamp) -> Int64 {
        now.milliseconds >= 0 ? now.milliseconds / 86_400_000 : (now.milliseconds - 86_399_999) / 86_400_000
    }
}
