import Synchronization
import TandemCore

/// The myMSP users as last read, with their app and account, kept for `lifetime` (5 s) so that a `send` or
/// `get` reads no user, app or account row: a changed password, event URL or binding (`tandem app set-mymsp`,
/// the admin API) and a disabled account take effect within that time. Unknown names are not cached (random
/// ones cannot fill it). Thread-safe; time comes from the caller.
final class MyMSPUsers: Sendable {
    struct Entry: Sendable {
        let user: MyMSPUser
        /// Nil when the app or its account is gone (then `send` answers 13).
        let sender: (app: App, account: Account)?
        let readAt: Timestamp
    }

    private let directory: any MyMSPDirectory
    private let senders: any SenderDirectory
    private let lifetime: Duration
    private let entries = Mutex<[String: Entry]>([:])

    init(directory: any MyMSPDirectory, senders: any SenderDirectory, lifetime: Duration = .seconds(5)) {
        self.directory = directory
        self.senders = senders
        self.lifetime = lifetime
    }

    func entry(name: String, now: Timestamp) async throws -> Entry? {
        if let cached = entries.withLock({ $0[name] }), now - cached.readAt < lifetime, now >= cached.readAt { return cached }
        guard let user = try await directory.mymspUser(name: name) else {
            entries.withLock { _ = $0.removeValue(forKey: name) }
            return nil
        }
        var sender: (App, Account)?
        if let app = try await senders.app(key: user.app), let account = try await senders.account(productToken: app.account) {
            sender = (app, account)
        }
        let entry = Entry(user: user, sender: sender, readAt: now)
        entries.withLock { entries in
            if entries.count >= 10_000 { entries.removeAll() }
            entries[name] = entry
        }
        return entry
    }
}
