import Testing
@testable import TandemCore

@Suite("Rate limiter")
struct RateLimiterTests {
    let t0 = Timestamp(milliseconds: 1_000_000)

    @Test("3 per hour per key: the fourth is refused until the first leaves the window")
    func slidingWindow() {
        var limiter = RateLimiter(limit: 3, window: .seconds(3_600))
        #expect(limiter.attempt("+31612345678", now: t0) == .allowed)
        #expect(limiter.attempt("+31612345678", now: t0 + .seconds(600)) == .allowed)
        #expect(limiter.attempt("+31612345678", now: t0 + .seconds(1_200)) == .allowed)
        #expect(limiter.attempt("+31612345678", now: t0 + .seconds(1_800)) == .limited(retryAfter: .seconds(1_800)))
        #expect(limiter.attempt("+31612345679", now: t0 + .seconds(1_800)) == .allowed)  // other keys are independent
        #expect(limiter.attempt("+31612345678", now: t0 + .milliseconds(3_599_999)) == .limited(retryAfter: .milliseconds(1)))
        #expect(limiter.attempt("+31612345678", now: t0 + .seconds(3_600)) == .allowed)
        #expect(limiter.attempt("+31612345678", now: t0 + .seconds(3_700)) == .limited(retryAfter: .seconds(500)))
    }

    @Test("a refused attempt does not use up budget; check records nothing")
    func refusalsAreFree() {
        var limiter = RateLimiter(limit: 1, window: .seconds(60))
        #expect(limiter.check("ip", now: t0) == .allowed)
        #expect(limiter.attempt("ip", now: t0) == .allowed)
        for second in 1..<60 { #expect(limiter.attempt("ip", now: t0 + .seconds(Int64(second))) != .allowed) }
        #expect(limiter.attempt("ip", now: t0 + .seconds(60)) == .allowed)
    }

    @Test("purge forgets keys whose events left the window")
    func purge() {
        var limiter = RateLimiter(limit: 2, window: .seconds(60))
        _ = limiter.attempt("a", now: t0)
        _ = limiter.attempt("b", now: t0 + .seconds(30))
        limiter.purge(now: t0 + .seconds(60))
        #expect(limiter.trackedKeys == 1)
        limiter.purge(now: t0 + .seconds(90))
        #expect(limiter.trackedKeys == 0)
    }
}
