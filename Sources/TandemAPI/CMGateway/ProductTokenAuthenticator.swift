import Synchronization
import TandemCore

/// Finds the account a product token belongs to without comparing the secret in variable time.
///
/// Accounts are held in memory keyed by a keyed hash of their token (SipHash under this process's random
/// seed, Swift's `Hasher`); a presented token is hashed, looked up by that number, and each account under it
/// is then compared with the presented token in constant time. Neither the lookup (by a hash no one outside
/// the process can compute) nor the comparison reveals how much of a guess was right. (SHA-256 served the
/// same purpose at ~1 µs per request through OpenSSL; the keyed hash costs tens of nanoseconds.) The table is reloaded from the
/// directory when a token is not found (at most once per `refreshInterval`, so random tokens cannot make
/// every request a full read) and whenever it is older than `maximumAge` (so a disabled account stops
/// working within that time).
public final class ProductTokenAuthenticator: Sendable {
    private struct Table {
        var byHash: [Int: [Account]] = [:]
        var loadedAt: Timestamp?
    }

    private let directory: any SenderDirectory
    private let now: @Sendable () -> Timestamp
    private let refreshInterval: Duration
    private let maximumAge: Duration
    private let table = Mutex(Table())

    public init(directory: any SenderDirectory, now: @escaping @Sendable () -> Timestamp,
                refreshInterval: Duration = .milliseconds(200), maximumAge: Duration = .seconds(5)) {
        self.directory = directory
        self.now = now
        self.refreshInterval = refreshInterval
        self.maximumAge = maximumAge
    }

    public enum Outcome: Sendable, Hashable {
        case authenticated(Account)
        /// No account has this token.
        case unknown
        case disabled
    }

    public func authenticate(_ token: ProductToken) async throws -> Outcome {
        let hash = Self.keyedHash(token)
        let current = now()
        let (cached, loadedAt) = table.withLock { ($0.byHash[hash], $0.loadedAt) }
        var candidates = cached ?? []
        let age = loadedAt.map { current - $0 }
        let stale = age.map { $0 >= maximumAge } ?? true
        let mayRefresh = age.map { $0 >= refreshInterval } ?? true
        if stale || (candidates.isEmpty && mayRefresh) {
            let accounts = try await directory.accounts()
            var byHash: [Int: [Account]] = [:]
            for stored in accounts { byHash[Self.keyedHash(stored.productToken), default: []].append(stored) }
            table.withLock { $0 = Table(byHash: byHash, loadedAt: current) }
            candidates = byHash[hash] ?? []
        }
        let presented = Array(token.text.utf8)
        // Every candidate is compared (in practice there is one), so the time does not depend on which matched.
        var match: Account?
        for candidate in candidates where ConstantTime.equals(Array(candidate.productToken.text.utf8), presented) {
            match = candidate
        }
        guard let account = match else { return .unknown }
        return account.disabled ? .disabled : .authenticated(account)
    }

    /// SipHash of the token's text under the process's random seed.
    private static func keyedHash(_ token: ProductToken) -> Int {
        var hasher = Hasher()
        hasher.combine(token.text)
        return hasher.finalize()
    }
}
