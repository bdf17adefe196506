import Synchronization
import TandemCore

/// The apps the device API verifies signatures for, by app key (`kid`), cached so that a request does
/// not read the database for its secret.
///
/// An app is read from the directory the first time its key is seen and again once its entry is older
/// than `maximumAge`, so a rotated secret (`tandem app rotate-secret`, another process) takes effect
/// within that time. Unknown keys are not cached (random `kid`s cannot grow the cache); each costs one
/// indexed read. Not guaranteed: that a secret rotated less than `maximumAge` ago is refused.
final class AppKeyring: Sendable {
    private struct Entry {
        let app: App
        let loadedAt: Timestamp
    }

    private let directory: any SenderDirectory
    private let maximumAge: Duration
    private let entries = Mutex<[AppKey: Entry]>([:])

    init(directory: any SenderDirectory, maximumAge: Duration = .seconds(5)) {
        self.directory = directory
        self.maximumAge = maximumAge
    }

    func app(_ key: AppKey, now: Timestamp) async throws -> App? {
        if let app = try cachedApp(key, now: now) { return app }
        return remember(try await directory.app(key: key), key: key, now: now)
    }

    /// ``app(_:now:)`` when it is answered without waiting: a fresh entry, else the directory's answer without
    /// waiting (``SenderDirectory/cachedApp(key:)``); nil when only the asynchronous read can answer.
    func cachedApp(_ key: AppKey, now: Timestamp) throws -> App?? {
        if let entry = entries.withLock({ $0[key] }), now - entry.loadedAt < maximumAge { return .some(entry.app) }
        guard let read = try directory.cachedApp(key: key) else { return nil }
        return .some(remember(read, key: key, now: now))
    }

    private func remember(_ app: App?, key: AppKey, now: Timestamp) -> App? {
        guard let app else {
            entries.withLock { _ = $0.removeValue(forKey: key) }
            return nil
        }
        entries.withLock { $0[key] = Entry(app: app, loadedAt: now) }
        return app
    }
}
