import Synchronization
import Testing
import TandemCore
@testable import TandemProviders

@Suite("Push credentials cache")
struct CachedPushCredentialsTests {
    /// Counts reads and answers with whatever the test stored last.
    final class CountingSource: PushCredentialsSource {
        let state = Mutex<(reads: Int, credentials: AppPushCredentials?)>((0, nil))
        func pushCredentials(for app: AppKey) async throws -> AppPushCredentials? {
            state.withLock { state in
                state.reads += 1
                return state.credentials
            }
        }
    }

    @Test("one store read per app per maximum age; a change is seen once the entry is older")
    func readsOncePerAge() async throws {
        let source = CountingSource()
        let first = AppPushCredentials(fcm: FCMCredentials(serviceAccountPath: "/etc/a.json"))
        source.state.withLock { $0.credentials = first }
        let clock = SimulatorTestClock()
        let cache = CachedPushCredentials(source, maximumAge: .seconds(5), clock: clock)
        let app = AppKey(GUID("aaaaaaaa-0000-4000-8000-000000000001")!)
        for _ in 0..<100 { #expect(try await cache.pushCredentials(for: app) == first) }
        #expect(source.state.withLock { $0.reads } == 1)

        let second = AppPushCredentials(fcm: FCMCredentials(serviceAccountPath: "/etc/b.json"))
        source.state.withLock { $0.credentials = second }
        clock.advance(by: .milliseconds(4_999))
        #expect(try await cache.pushCredentials(for: app) == first)
        clock.advance(by: .milliseconds(1))
        #expect(try await cache.pushCredentials(for: app) == second)
        #expect(source.state.withLock { $0.reads } == 2)
    }
}
