import Synchronization
import Testing
import TandemCore
@testable import TandemProviders

/// `FCMAccessTokens` against a scripted token endpoint: each fetch waits until the test answers it.
@Suite("FCM access tokens")
struct FCMAccessTokensTests {
    /// Fetches in the order they started; each is answered by `answer(_:with:)`.
    final class Endpoint: Sendable {
        private let pending = Mutex<[Int: CheckedContinuation<Result<FCMAccessToken, FCMTokenError>, Never>]>([:])
        private let count = Mutex(0)

        var started: Int { count.withLock { $0 } }

        func fetch() async -> Result<FCMAccessToken, FCMTokenError> {
            await withCheckedContinuation { continuation in
                count.withLock { count in
                    count += 1
                    pending.withLock { $0[count] = continuation }
                }
            }
        }

        /// Waits (yielding, no real time) until fetch `number` has started, then answers it.
        func answer(_ number: Int, with result: Result<FCMAccessToken, FCMTokenError>) async {
            while true {
                if let continuation = pending.withLock({ $0.removeValue(forKey: number) }) {
                    continuation.resume(returning: result)
                    return
                }
                await Task.yield()
            }
        }
    }

    static func token(_ value: String, lifetime: Duration = .seconds(3_600)) -> Result<FCMAccessToken, FCMTokenError> {
        .success(FCMAccessToken(value: value, lifetime: lifetime))
    }

    let clock = PushTestClock(Timestamp(milliseconds: 1_700_000_000_000))
    let endpoint = Endpoint()

    func tokens() -> FCMAccessTokens {
        FCMAccessTokens(clock: clock, margin: .seconds(300), holdOff: .seconds(60)) { [endpoint] _ in
            await endpoint.fetch()
        }
    }

    /// Yields enough for tasks just started to reach their first suspension.
    func settle() async {
        for _ in 0..<50 { await Task.yield() }
    }

    @Test("concurrent callers share one fetch; the token is reused until `margin` before it expires")
    func shared() async throws {
        let tokens = tokens()
        let callers = (0..<5).map { _ in Task { await tokens.token() } }
        await endpoint.answer(1, with: Self.token("A"))
        for caller in callers { #expect(try await caller.value.get() == "A") }
        clock.advance(by: .seconds(3_299))
        #expect(try await tokens.token().get() == "A")
        #expect(endpoint.started == 1)
        clock.advance(by: .seconds(1))
        let renewed = Task { await tokens.token() }
        await endpoint.answer(2, with: Self.token("B"))
        #expect(try await renewed.value.get() == "B")
        #expect(await tokens.fetches == 2)
    }

    @Test("a token FCM answered 401 to is not handed out again, even by the fetch in flight when the 401 came")
    func staleInFlight() async throws {
        let tokens = tokens()
        // The first caller starts fetch 1; a second, whose send with "A" was answered 401, asks while
        // fetch 1 (which yields "A") has not been recorded yet.
        let first = Task { await tokens.token() }
        while endpoint.started < 1 { await Task.yield() }
        let replacing = Task { await tokens.token(replacing: "A") }
        await settle()
        await endpoint.answer(1, with: Self.token("A"))
        #expect(try await first.value.get() == "A")
        // Others reporting the same stale token join the newer fetch.
        let more = (0..<3).map { _ in Task { await tokens.token(replacing: "A") } }
        await endpoint.answer(2, with: Self.token("B"))
        #expect(try await replacing.value.get() == "B")
        for caller in more { #expect(try await caller.value.get() == "B") }
        #expect(try await tokens.token().get() == "B")
        #expect(endpoint.started == 2)
        // A caller still reporting "A" once "B" is current gets "B" without a fetch.
        #expect(try await tokens.token(replacing: "A").get() == "B")
        #expect(endpoint.started == 2)
    }

    @Test("a new fetch that yields the stale token again is taken (one fetch, not a loop)")
    func staleAgain() async throws {
        let tokens = tokens()
        let first = Task { await tokens.token() }
        await endpoint.answer(1, with: Self.token("A"))
        #expect(try await first.value.get() == "A")
        let replacing = Task { await tokens.token(replacing: "A") }
        await endpoint.answer(2, with: Self.token("A"))
        #expect(try await replacing.value.get() == "A")
        #expect(endpoint.started == 2)
    }

    @Test("a refusal is remembered for holdOff; an unavailable endpoint is asked again at once")
    func failures() async throws {
        let tokens = tokens()
        let refused = Task { await tokens.token() }
        await endpoint.answer(1, with: .failure(.refused(status: 400, reason: "invalid_grant")))
        #expect(await refused.value == .failure(.refused(status: 400, reason: "invalid_grant")))
        clock.advance(by: .seconds(59))
        #expect(await tokens.token() == .failure(.refused(status: 400, reason: "invalid_grant")))
        #expect(endpoint.started == 1)
        clock.advance(by: .seconds(1))
        let unavailable = Task { await tokens.token() }
        await endpoint.answer(2, with: .failure(.unavailable("down", retryAfter: nil)))
        #expect(await unavailable.value == .failure(.unavailable("down", retryAfter: nil)))
        let again = Task { await tokens.token() }
        await endpoint.answer(3, with: Self.token("C"))
        #expect(try await again.value.get() == "C")
    }
}
