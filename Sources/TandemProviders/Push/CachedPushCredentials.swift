import Synchronization
import TandemCore

/// Keeps each app's push credentials for `maximumAge`, so a push does not read and decode them from the
/// store every time (one read per app per `maximumAge` instead of one per push).
///
/// Not guaranteed: that credentials changed less than `maximumAge` ago (`tandem app set-apns`) are used.
/// A failed read is not cached.
public final class CachedPushCredentials: PushCredentialsSource {
    private struct Entry {
        let credentials: AppPushCredentials?
        let loadedAt: Timestamp
    }

    private let source: any PushCredentialsSource
    private let maximumAge: Duration
    private let clock: any SchedulerClock
    private let entries = Mutex<[AppKey: Entry]>([:])

    public init(_ source: any PushCredentialsSource, maximumAge: Duration = .seconds(5), clock: any SchedulerClock) {
        self.source = source
        self.maximumAge = maximumAge
        self.clock = clock
    }

    public func pushCredentials(for app: AppKey) async throws -> AppPushCredentials? {
        let now = clock.now()
        if let entry = entries.withLock({ $0[app] }), now - entry.loadedAt < maximumAge { return entry.credentials }
        let credentials = try await source.pushCredentials(for: app)
        entries.withLock { $0[app] = Entry(credentials: credentials, loadedAt: now) }
        return credentials
    }
}
