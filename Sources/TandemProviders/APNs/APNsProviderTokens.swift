import Foundation
import Synchronization
import TandemCore
import TandemCrypto

/// APNs provider authentication tokens: one ES256 JWT per signing key (`.p8` + key ID + team ID), signed
/// on first use and reused by every push until it is `refreshInterval` old — never one per request
/// (Apple answers `TooManyProviderTokenUpdates` to frequent new tokens).
///
/// The parsed key is cached too. A key file is `stat`ed on each use and read again when it was replaced
/// (a new token is then signed at once); a key in an environment variable is parsed again when the
/// variable's text changes (a one-line PEM with literal `\n` separators is accepted). If a cached key's file becomes unreadable, the cached key goes on being used.
///
/// All state is behind one lock, signing included (≈ 60 µs, once per key per refresh interval), so
/// concurrent pushes never sign twice for one period.
/// Not guaranteed: that Apple accepts the token (it checks the key, kid and iss); eviction — an entry
/// stays for as long as the sender lives (one per app key in use).
final class APNsProviderTokens: Sendable {
    private struct Identity: Hashable {
        let keySource: APNsKeySource
        let keyID: String
        let teamID: String
    }

    private enum KeyVersion: Hashable {
        case file(KeyFileSnapshot.Version)
        /// SHA-256 of the variable's text (the text itself is not kept).
        case environment([UInt8])
    }

    private struct Entry {
        let key: SigningKey
        let keyVersion: KeyVersion
        var token: String
        var issuedAt: Timestamp
    }

    private let entries = Mutex<[Identity: Entry]>([:])
    private let refreshInterval: Duration
    private let environment: @Sendable (String) -> String?
    private let issuedCount = Atomic<Int>(0)

    init(refreshInterval: Duration, environment: @escaping @Sendable (String) -> String?) {
        self.refreshInterval = refreshInterval
        self.environment = environment
    }

    /// JWTs signed so far (for statistics and tests).
    var issued: Int { issuedCount.load(ordering: .relaxed) }

    /// The token to send now for `credentials`: the cached one while it is younger than the refresh
    /// interval (and its key unchanged), else a newly signed one.
    func token(for credentials: APNsCredentials, now: Timestamp) throws(PushKeyError) -> String {
        try withEntry(for: credentials, now: now) { entry, _ in entry.map(\.token) }
    }

    /// A token other than `stale` (after Apple answered `ExpiredProviderToken` to it): signs a new one
    /// unless another push already replaced `stale`, in which case that replacement is returned.
    func renew(for credentials: APNsCredentials, replacing stale: String, now: Timestamp) throws(PushKeyError) -> String {
        try withEntry(for: credentials, now: now) { entry, _ in
            guard let entry, entry.token != stale else { return nil }
            return entry.token
        }
    }

    /// Under the lock: `reuse` returns the token to use when one is acceptable (given the current,
    /// unexpired, same-key entry, or nil); otherwise a new token is signed and stored.
    private func withEntry(for credentials: APNsCredentials, now: Timestamp,
                           reuse: (Entry?, Identity) -> String?) throws(PushKeyError) -> String {
        let identity = Identity(keySource: credentials.keySource, keyID: credentials.keyID, teamID: credentials.teamID)
        return try entries.withLock { (entries: inout [Identity: Entry]) throws(PushKeyError) -> String in
            var entry = entries[identity]
            let version = currentVersion(of: identity.keySource)
            if let current = entry, let version, current.keyVersion != version {
                entry = nil  // the key was replaced: read it again, sign anew
            }
            let fresh = entry.flatMap { $0.issuedAt <= now && now - $0.issuedAt < refreshInterval ? $0 : nil }
            if let token = reuse(fresh, identity) { return token }
            let key: SigningKey
            let keyVersion: KeyVersion
            if let entry {
                (key, keyVersion) = (entry.key, entry.keyVersion)
            } else {
                (key, keyVersion) = try loadKey(identity.keySource)
            }
            let token = try Self.sign(keyID: identity.keyID, teamID: identity.teamID, issuedAt: now, with: key)
            entries[identity] = Entry(key: key, keyVersion: keyVersion, token: token, issuedAt: now)
            issuedCount.add(1, ordering: .relaxed)
            return token
        }
    }

    /// The key's version as it is now, or nil when it cannot be examined (then a cached key is kept).
    private func currentVersion(of source: APNsKeySource) -> KeyVersion? {
        switch source {
        case .file(let path):
            return KeyFileSnapshot.version(of: path).map(KeyVersion.file)
        case .environment(let name):
            return environment(name).map { .environment(Digest.hash(.sha256, Array($0.utf8))) }
        }
    }

    private func loadKey(_ source: APNsKeySource) throws(PushKeyError) -> (SigningKey, KeyVersion) {
        let pem: String
        let version: KeyVersion
        switch source {
        case .file(let path):
            let snapshot = try KeyFileSnapshot.read(path)
            (pem, version) = (snapshot.text, .file(snapshot.version))
        case .environment(let name):
            guard let text = environment(name) else { throw .environmentVariableUnset(name: name) }
            // A PEM squeezed onto one line for an environment file often has literal "\n" separators.
            let unescaped = text.contains("\n") ? text : text.replacingOccurrences(of: "\\n", with: "\n")
            (pem, version) = (unescaped, .environment(Digest.hash(.sha256, Array(text.utf8))))
        }
        let key: SigningKey
        do {
            key = try SigningKey(pem: pem)
        } catch {
            throw .invalidKey(error)
        }
        guard key.algorithm == .es256 else { throw .invalidKey(.invalidKey("an APNs key must be a P-256 EC key")) }
        return (key, version)
    }

    /// `{"alg":"ES256","typ":"JWT","kid":…}.{"iss":<team>,"iat":<unix seconds>}`, signed.
    static func sign(keyID: String, teamID: String, issuedAt: Timestamp, with key: SigningKey) throws(PushKeyError) -> String {
        let seconds = issuedAt.milliseconds >= 0 ? issuedAt.milliseconds / 1_000 : (issuedAt.milliseconds - 999) / 1_000
        let claims = "{\"iss\":" + JSONText.quoted(teamID) + ",\"iat\":\(seconds)}"
        do {
            return try JSONWebToken.sign(claims: claims, headerMembers: "\"kid\":" + JSONText.quoted(keyID), with: key)
        } catch {
            throw .signingFailed(error)
        }
    }
}
