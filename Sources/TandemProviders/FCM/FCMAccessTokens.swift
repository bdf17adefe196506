import TandemCore

/// One service account's OAuth2 access token, shared by every push for it: fetched when first needed,
/// reused until `margin` before Google's `expires_in`, then fetched again.
///
/// Concurrent pushes share one in-flight fetch: the first starts it (as an unstructured task, so that
/// its own cancellation does not fail the others) and every caller awaits the same result. A refusal
/// (`invalid_grant`) is remembered for `holdOff`; other failures are not remembered.
/// Not guaranteed: that a caller cancelled while the fetch runs returns before the fetch ends (it is
/// bounded by the request timeout).
actor FCMAccessTokens {
    private enum State {
        case empty
        case fetching(id: Int, Task<Result<FCMAccessToken, FCMTokenError>, Never>)
        case ready(token: String, refreshAt: Timestamp)
        case refused(FCMTokenError, until: Timestamp)
    }

    private let fetcher: FCMTokenFetcher
    private let clock: any SchedulerClock
    private let margin: Duration
    private let holdOff: Duration
    private var state = State.empty
    private var started = 0

    init(fetcher: FCMTokenFetcher, clock: any SchedulerClock, margin: Duration, holdOff: Duration) {
        self.fetcher = fetcher
        self.clock = clock
        self.margin = margin
        self.holdOff = holdOff
    }

    /// Token fetches started so far.
    var fetches: Int { started }

    /// A valid access token, from the cache or a (shared) fetch.
    func token() async -> Result<String, FCMTokenError> {
        let now = clock.now()
        switch state {
        case .ready(let token, let refreshAt) where now < refreshAt:
            return .success(token)
        case .refused(let error, let until) where now < until:
            return .failure(error)
        case .fetching(_, let task):
            return await task.value.map(\.value)
        case .empty, .ready, .refused:
            break
        }
        started += 1
        let id = started
        let fetcher = self.fetcher
        let task = Task { await fetcher.fetch(now: now) }
        state = .fetching(id: id, task)
        let result = await task.value
        if case .fetching(let current, _) = state, current == id {
            switch result {
            case .success(let token):
                // Counted from the start of the fetch; half the lifetime if the margin would eat it all.
                let usable = token.lifetime > margin * 2 ? token.lifetime - margin : token.lifetime / 2
                state = .ready(token: token.value, refreshAt: now + usable)
            case .failure(let error):
                switch error {
                case .refused, .key: state = .refused(error, until: now + holdOff)
                case .unavailable, .abandoned: state = .empty
                }
            }
        }
        return result.map(\.value)
    }

    /// Forgets `token` after FCM answered 401 to it, so the next ``token()`` fetches a new one. A token
    /// already replaced is left alone (many sends may report the same stale token).
    func invalidate(_ token: String) {
        if case .ready(let current, _) = state, current == token { state = .empty }
    }
}
