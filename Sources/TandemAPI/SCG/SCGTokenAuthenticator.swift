import Synchronization
import TandemCore
import TandemCrypto

/// Finds the account an SCG bearer token belongs to.
///
/// Tokens are stored as SHA-256 digests only. Live digests are held in memory keyed by their first eight
/// bytes; a presented token is hashed, looked up by that prefix, and each digest under it compared in
/// constant time. The table is reloaded when a token is not found (at most once per `refreshInterval`)
/// and whenever it is older than `maximumAge`: a revoked token, or a disabled account, stops working within
/// `maximumAge` (5 s by default), a new token works at once.
public final class SCGTokenAuthenticator: Sendable {
    public enum Outcome: Sendable, Hashable {
        case authenticated(Account)
        /// No live token has this digest.
        case unknown
        case disabled
    }

    private struct Table {
        var byPrefix: [UInt64: [SCGTokenGrant]] = [:]
        var loadedAt: Timestamp?
    }

    private let tokens: any SCGTokenStore
    private let now: @Sendable () -> Timestamp
    private let refreshInterval: Duration
    private let maximumAge: Duration
    private let table = Mutex(Table())

    public init(tokens: any SCGTokenStore, now: @escaping @Sendable () -> Timestamp,
                refreshInterval: Duration = .milliseconds(200), maximumAge: Duration = .seconds(5)) {
        self.tokens = tokens
        self.now = now
        self.refreshInterval = refreshInterval
        self.maximumAge = maximumAge
    }

    /// A new token's text: `scg_` and 64 hex digits (32 bytes from the system's CSPRNG).
    public static func newToken() -> String { "scg_" + Digest.hex(SecureRandom.bytes(32)) }

    /// SHA-256 of the token's UTF-8 text: what is stored.
    public static func digest(_ token: String) -> [UInt8] { Digest.hash(.sha256, Array(token.utf8)) }

    public func authenticate(_ token: String) throws -> Outcome {
        let digest = Self.digest(token)
        let prefix = Self.prefix(digest)
        let current = now()
        let (cached, loadedAt) = table.withLock { ($0.byPrefix[prefix], $0.loadedAt) }
        var candidates = cached ?? []
        let age = loadedAt.map { current - $0 }
        let stale = age.map { $0 >= maximumAge } ?? true
        let mayRefresh = age.map { $0 >= refreshInterval } ?? true
        if stale || (candidates.isEmpty && mayRefresh) {
            var byPrefix: [UInt64: [SCGTokenGrant]] = [:]
            for grant in try tokens.liveSCGTokens() { byPrefix[Self.prefix(grant.digest), default: []].append(grant) }
            table.withLock { $0 = Table(byPrefix: byPrefix, loadedAt: current) }
            candidates = byPrefix[prefix] ?? []
        }
        var match: Account?
        for candidate in candidates where ConstantTime.equals(candidate.digest, digest) { match = candidate.account }
        guard let match else { return .unknown }
        return match.disabled ? .disabled : .authenticated(match)
    }

    private static func prefix(_ digest: [UInt8]) -> UInt64 {
        digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
