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

    func app(_ key: AppKey, now: Timestamp) throws -> App? {
        if let entry = entries.withLock({ $0[key] }), now - entry.loadedAt < maximumAge { return entry.app }
        guard let app = try directory.app(key: key) else {
            entries.withLock { _ = $0.removeValue(forKey: key) }
            return nil
        }
        entries.withLock { $0[key] = Entry(app: app, loadedAt: now) }
        return app
    }
}
