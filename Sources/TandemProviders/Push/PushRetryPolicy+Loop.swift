import TandemCore

extension PushRetryPolicy {
    /// Runs `attempt` until it decides, the attempts run out, or the next retry would start at or after
    /// `deadline` (then `.rejected(.transient)`). Sleeps between attempts on `clock`; returns nil when
    /// the task is cancelled (before an attempt or while waiting) or an attempt is abandoned.
    ///
    /// `attempt` receives the 1-based attempt number. Not guaranteed: that `attempt` is not running when
    /// the task is cancelled — it must check cancellation itself.
    func run(clock: any SchedulerClock, deadline: Timestamp, logger: Logger,
             _ attempt: (Int) async -> PushAttemptResult) async -> PushVerdict? {
        var generator = SystemRandomNumberGenerator()
        var number = 1
        while true {
            if Task.isCancelled { return nil }
            switch await attempt(number) {
            case .decided(let verdict):
                return verdict
            case .abandoned:
                return nil
            case .retry(let reason, let retryAfter):
                let wait = delay(beforeRetry: number, retryAfter: retryAfter,
                                 unitRandom: Double.random(in: 0..<1, using: &generator))
                let resume = clock.now() + wait
                guard number < maxAttempts, resume < deadline else {
                    logger.warning("push gave up after transient failures",
                                   ["attempts": .int(Int64(number)), "reason": .string(reason)])
                    return .rejected(.transient)
                }
                logger.debug("push retrying", ["attempt": .int(Int64(number)), "reason": .string(reason),
                                               "delay_ms": .int(Int64((wait / .milliseconds(1)).rounded(.up)))])
                do {
                    try await clock.sleep(until: resume)
                } catch {
                    return nil
                }
                number += 1
            }
        }
    }
}
