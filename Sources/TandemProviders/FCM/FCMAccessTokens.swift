import TandemCore

/// One service account's OAuth2 access token, shared by every push for it: fetched when first needed,
/// reused until `margin` before Google's `expires_in`, then fetched again.
///
/// Concurrent pushes share one in-flight fetch: the first starts it (as an unstructured task, so that
/// its own cancellation does not fail the others) and every caller awaits the same result; whichever
/// caller resumes first records it. A refusal (`invalid_grant`) is remembered for `holdOff`; other
/// failures are not remembered.
/// Not guaranteed: that a caller cancelled while the fetch runs returns before the fetch ends (it is
/// bounded by the request timeout).
actor FCMAccessTokens {
    typealias Fetch = @Sendable (Timestamp) async -> Result<FCMAccessToken, FCMTokenError>

    private enum State {
        case empty
        case fetching(id: Int, startedAt: Timestamp, Task<Result<FCMAccessToken, FCMTokenError>, Never>)
        case ready(token: String, refreshAt: Timestamp)
        case refused(FCMTokenError, until: Timestamp)
    }

    private let fetch: Fetch
    private let clock: any SchedulerClock
    private let margin: Duration
    private let holdOff: Duration
    private var state = State.empty
    private var started = 0

    init(fetcher: FCMTokenFetcher, clock: any SchedulerClock, margin: Duration, holdOff: Duration) {
        self.init(clock: clock, margin: margin, holdOff: holdOff) { now in await fetcher.fetch(now: now) }
    }

    init(clock: any SchedulerClock, margin: Duration, holdOff: Duration, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.clock = clock
        self.margin = margin
        self.holdOff = holdOff
    }

    /// Token fetches started so far.
    var fetches: Int { started }

    /// A valid access token, from the cache or a (shared) fetch.
    ///
    /// `replacing`: a token FCM just answered 401 to. It is not returned again, even when it is the
    /// result of a fetch that was still in flight when the caller asked (the 401 came back before the
    /// fetch's starter had recorded it): such a caller starts, or joins, one newer fetch and takes what
    /// that gives. Many sends reporting the same stale token share that one fetch.
    func token(replacing stale: String? = nil) async -> Result<String, FCMTokenError> {
        var fetchedSinceStale = false
        while true {
            let now = clock.now()
            switch state {
            case .ready(let token, let refreshAt) where now < refreshAt && token != stale:
                return .success(token)
            case .refused(let error, let until) where now < until:
                return .failure(error)
            case .fetching(let id, let startedAt, let task):
                let result = await task.value
                record(result, of: id, startedAt: startedAt)
                if case .success(let token) = result, token.value == stale, !fetchedSinceStale { continue }
                return result.map(\.value)
            case .empty, .ready, .refused:
                started += 1
                let fetch = self.fetch
                state = .fetching(id: started, startedAt: now, Task { await fetch(now) })
                fetchedSinceStale = true
            }
        }
    }

    /// Records fetch `id`'s result unless a later fetch has already replaced it.
    private func record(_ result: Result<FCMAccessToken, FCMTokenError>, of id: Int, startedAt: Timestamp) {
        guard case .fetching(let current, _, _) = state, current == id else { return }
        switch result {
        case .success(let token):
            // Counted from the start of the fetch; half the lifetime if the margin would eat it all.
            let usable = token.lifetime > margin * 2 ? token.lifetime - margin : token.lifetime / 2
            state = .ready(token: token.value, refreshAt: startedAt + usable)
        case .failure(let error):
            switch error {
            case .refused, .key: state = .refused(error, until: startedAt + holdOff)
            case .unavailable, .abandoned: state = .empty
            }
        }
    }
}
