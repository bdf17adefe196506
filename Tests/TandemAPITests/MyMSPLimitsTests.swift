import TandemCore
import Testing
@testable import TandemAPI

@Suite("myMSP abuse limits and quota")
struct MyMSPLimitsTests {
    static let t0 = Timestamp(milliseconds: 1_700_000_000_000)

    @Test("a request charges its address and its user, or neither; the longest wait is the Retry-After")
    func budgets() {
        var configuration = Configuration.MyMSP()
        configuration.subscribesPerClientIP = Configuration.Budget(limit: 2, window: .seconds(3_600))
        configuration.subscribesPerUser = Configuration.Budget(limit: 3, window: .seconds(60))
        configuration.getsPerClientIP = nil
        configuration.getsPerUser = nil
        let limits = MyMSPLimits(configuration)
        #expect(limits.charge(.subscribe, clientIP: "10.0.0.1", user: 1, now: Self.t0) == .allowed)
        #expect(limits.charge(.subscribe, clientIP: "10.0.0.1", user: 1, now: Self.t0) == .allowed)
        // The address is spent (for an hour); the user's third subscribe from another address is still allowed.
        #expect(limits.charge(.subscribe, clientIP: "10.0.0.1", user: 1, now: Self.t0 + .seconds(1))
                == .limited(retryAfter: .seconds(3_599)))
        #expect(limits.charge(.subscribe, clientIP: "10.0.0.2", user: 1, now: Self.t0 + .seconds(1)) == .allowed)
        // Now the user is spent too: the refusal charged nothing, so the other address still has one left.
        #expect(limits.charge(.subscribe, clientIP: "10.0.0.2", user: 1, now: Self.t0 + .seconds(2))
                == .limited(retryAfter: .seconds(58)))
        #expect(limits.charge(.subscribe, clientIP: "10.0.0.2", user: 2, now: Self.t0 + .seconds(2)) == .allowed)
        // Budgets set to null are not enforced.
        for _ in 0..<100 { #expect(limits.charge(.get, clientIP: "10.0.0.1", user: 1, now: Self.t0) == .allowed) }
    }

    @Test("the message quota counts per user per UTC day (error 11 beyond it); none without a quota")
    func quota() {
        var configuration = Configuration.MyMSP()
        configuration.messagesPerDay = 2
        let limits = MyMSPLimits(configuration)
        let midnight = Timestamp(milliseconds: 1_700_006_400_000)  // 2023-11-15T00:00:00Z
        let before = Timestamp(milliseconds: 1_700_006_399_000), justBefore = Timestamp(milliseconds: 1_700_006_399_999)
        #expect(limits.quotaAllows(user: 1, now: before))
        limits.recordSent(user: 1, now: before)
        limits.recordSent(user: 1, now: before)
        #expect(!limits.quotaAllows(user: 1, now: justBefore))
        #expect(limits.quotaAllows(user: 2, now: justBefore))
        #expect(limits.quotaAllows(user: 1, now: midnight))  // a new UTC day
        let unlimited = MyMSPLimits(Configuration.MyMSP())
        for _ in 0..<10 { unlimited.recordSent(user: 1, now: midnight) }
        #expect(unlimited.quotaAllows(user: 1, now: midnight))
    }
}
