import Synchronization

/// The service accounts in use, by file path: parsed once, with their shared access-token cache. The
/// file is `stat`ed on each use and parsed again (with a fresh token cache) when it was replaced; if a
/// cached file becomes unreadable, the cached account goes on being used.
///
/// Not guaranteed: eviction — an entry stays for as long as the sender lives (one per app in use).
final class FCMAccounts: Sendable {
    struct Loaded: Sendable {
        let account: FCMServiceAccount
        let tokens: FCMAccessTokens
    }

    private struct Entry: Sendable {
        let version: KeyFileSnapshot.Version
        let loaded: Loaded
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let makeTokens: @Sendable (FCMServiceAccount) -> FCMAccessTokens

    init(makeTokens: @escaping @Sendable (FCMServiceAccount) -> FCMAccessTokens) {
        self.makeTokens = makeTokens
    }

    func account(at path: String) throws(PushKeyError) -> Loaded {
        try entries.withLock { (entries: inout [String: Entry]) throws(PushKeyError) -> Loaded in
            let version = KeyFileSnapshot.version(of: path)
            if let entry = entries[path], version == nil || version == entry.version { return entry.loaded }
            let snapshot = try KeyFileSnapshot.read(path)
            let account = try FCMServiceAccount(json: Array(snapshot.text.utf8), path: path)
            let loaded = Loaded(account: account, tokens: makeTokens(account))
            entries[path] = Entry(version: snapshot.version, loaded: loaded)
            return loaded
        }
    }
}
