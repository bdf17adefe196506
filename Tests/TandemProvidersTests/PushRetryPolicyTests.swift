import Testing
import TandemCore
@testable import TandemProviders

@Suite("Push retry policy")
struct PushRetryPolicyTests {
    let policy = PushRetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(500), maxDelay: .seconds(60))

    @Test("the delay doubles per retry up to the cap, with up to half of it random")
    func exponentialWithJitter() {
        let fixedHalves = (1...10).map { policy.delay(beforeRetry: $0, retryAfter: nil, unitRandom: 0) }
        #expect(fixedHalves.prefix(8) == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4),
                                          .seconds(8), .seconds(16), .seconds(30)])
        #expect(fixedHalves[8] == .seconds(30) && fixedHalves[9] == .seconds(30), "capped at maxDelay")
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, unitRandom: 0.999_999) < .seconds(2))
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, unitRandom: 0.5) == .milliseconds(1_500))
        #expect(policy.delay(beforeRetry: 1_000, retryAfter: nil, unitRandom: 1) == .seconds(60))
    }

    @Test("a Retry-After is taken as given")
    func retryAfter() {
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(120), unitRandom: 0.3) == .seconds(120))
        #expect(PushRetryPolicy.retryAfter("3") == .seconds(3))
        #expect(PushRetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(PushRetryPolicy.retryAfter("-1") == nil)
        #expect(PushRetryPolicy.retryAfter(nil) == nil)
    }

    @Test("the retry deadline is the earlier of the push TTL and the lifetime; the maximum stands for providerMaximum")
    func deadlines() {
        let start = Timestamp(milliseconds: 1_000_000)
        let maximum = Duration.seconds(28 * 24 * 3600)
        let set = PolicySet.specDefaults
        #expect(PushRetryPolicy.retryDeadline(for: set.otp, from: start, providerMaximum: maximum) == start + .seconds(30))
        #expect(PushRetryPolicy.retryDeadline(for: set.critical, from: start, providerMaximum: maximum) == start + .seconds(30))
        #expect(PushRetryPolicy.retryDeadline(for: set.defaultPolicy, from: start, providerMaximum: maximum) == start + maximum)
        var shortLifetime = set.defaultPolicy
        shortLifetime.lifetime = .limited(.seconds(5))
        #expect(PushRetryPolicy.retryDeadline(for: shortLifetime, from: start, providerMaximum: maximum) == start + .seconds(5))
    }

    @Test("nonsense settings are named")
    func validation() {
        #expect(policy.validationProblem == nil)
        #expect(PushRetryPolicy(maxAttempts: 0).validationProblem != nil)
        #expect(PushRetryPolicy(baseDelay: .zero).validationProblem != nil)
        #expect(PushRetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(1)).validationProblem != nil)
    }

    @Test("the loop stops at maxAttempts, before the deadline, on a decision, and on cancellation")
    func loop() async {
        let clock = PushTestClock(Timestamp(milliseconds: 0))
        var calls = 0
        let exhausted = await policy.run(clock: clock, deadline: Timestamp(milliseconds: 10_000_000), logger: .discarding) { _ in
            calls += 1
            return .retry(reason: "busy", retryAfter: nil)
        }
        #expect(exhausted == .rejected(.transient) && calls == 8 && clock.sleeps.count == 7)

        calls = 0
        let late = PushTestClock(Timestamp(milliseconds: 0))
        let bounded = await policy.run(clock: late, deadline: Timestamp(milliseconds: 10_000), logger: .discarding) { _ in
            calls += 1
            return .retry(reason: "busy", retryAfter: .seconds(4))
        }
        #expect(bounded == .rejected(.transient) && calls == 3, "retries at 4 s and 8 s; 12 s is past the deadline")

        calls = 0
        let decided = await policy.run(clock: clock, deadline: Timestamp(milliseconds: 10_000_000), logger: .discarding) { number in
            calls += 1
            return number < 3 ? .retry(reason: "busy", retryAfter: nil) : .decided(.accepted)
        }
        #expect(decided == .accepted && calls == 3)

        let cancelled = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await policy.run(clock: clock, deadline: Timestamp(milliseconds: 10_000_000), logger: .discarding) { _ in
                .decided(.accepted)
            }
        }.value
        #expect(cancelled == nil)
    }
}
