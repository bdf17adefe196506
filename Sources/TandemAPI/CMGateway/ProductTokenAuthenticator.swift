import Synchronization
import TandemCore
import TandemCrypto

/// Finds the account a product token belongs to without comparing the secret in variable time.
///
/// Accounts are held in memory keyed by the SHA-256 of their token; a presented token is hashed, looked
/// up by its digest, and then compared with the stored token in constant time. Neither the lookup (by a
/// digest) nor the comparison reveals how much of a guess was right. The table is reloaded from the
/// directory when a token is not found (at most once per `refreshInterval`, so random tokens cannot make
/// every request a full read) and whenever it is older than `maximumAge` (so a disabled account stops
/// working within that time).
public final class ProductTokenAuthenticator: Sendable {
    private struct Table {
        var byDigest: [String: Account] = [:]
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

    public func authenticate(_ token: ProductToken) throws -> Outcome {
        let digest = Digest.hex(Digest.hash(.sha256, Array(token.text.utf8)))
        let current = now()
        let (cached, loadedAt) = table.withLock { ($0.byDigest[digest], $0.loadedAt) }
        var account = cached
        let age = loadedAt.map { current - $0 }
        let stale = age.map { $0 >= maximumAge } ?? true
        let mayRefresh = age.map { $0 >= refreshInterval } ?? true
        if stale || (account == nil && mayRefresh) {
            let accounts = try directory.accounts()
            var byDigest: [String: Account] = [:]
            for stored in accounts {
                byDigest[Digest.hex(Digest.hash(.sha256, Array(stored.productToken.text.utf8)))] = stored
            }
            table.withLock { $0 = Table(byDigest: byDigest, loadedAt: current) }
            account = byDigest[digest]
        }
        guard let account,
              ConstantTime.equals(Array(account.productToken.text.utf8), Array(token.text.utf8)) else { return .unknown }
        return account.disabled ? .disabled : .authenticated(account)
    }
}
