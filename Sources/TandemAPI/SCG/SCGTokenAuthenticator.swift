import Synchronization
import TandemCore
import TandemCrypto

/// Finds the account an SCG bearer token belongs to.
///
/// Tokens are stored as SHA-256 digests only. A presented token is hashed; tokens seen recently are held in
/// memory keyed by their digest's first eight bytes, and each digest under that key is compared with the
/// presented one in constant time. A token not held (or held longer than `maximumAge`) is looked up in the
/// store by its digest (one indexed read), so a token created a moment ago, by this server or by the CLI,
/// works at once, and a valid token is never refused. A revoked token, or a disabled account, stops working
/// within `maximumAge` (5 s by default). Unknown tokens are not remembered (random guesses cannot fill memory).
public final class SCGTokenAuthenticator: Sendable {
    public enum Outcome: Sendable, Hashable {
        case authenticated(Account)
        /// No live token has this digest.
        case unknown
        case disabled
    }

    private struct Held {
        let grant: SCGTokenGrant
        let loadedAt: Timestamp
    }

    private let tokens: any SCGTokenStore
    private let now: @Sendable () -> Timestamp
    private let maximumAge: Duration
    private let held = Mutex([UInt64: [Held]]())

    public init(tokens: any SCGTokenStore, now: @escaping @Sendable () -> Timestamp, maximumAge: Duration = .seconds(5)) {
        self.tokens = tokens
        self.now = now
        self.maximumAge = maximumAge
    }

    /// A new token's text: `scg_` and 64 hex digits (32 bytes from the system's CSPRNG).
    public static func newToken() -> String { "scg_" + Digest.hex(SecureRandom.bytes(32)) }

    /// SHA-256 of the token's UTF-8 text: what is stored.
    public static func digest(_ token: String) -> [UInt8] { Digest.hash(.sha256, Array(token.utf8)) }

    public func authenticate(_ token: String) async throws -> Outcome {
        let digest = Self.digest(token)
        let prefix = Self.prefix(digest)
        let current = now()
        let candidates = held.withLock { $0[prefix] ?? [] }.filter { current - $0.loadedAt < maximumAge }
        var match: SCGTokenGrant?
        // Every candidate is compared (in practice there is at most one), so the time does not depend on which matched.
        for candidate in candidates where ConstantTime.equals(candidate.grant.digest, digest) { match = candidate.grant }
        if match == nil {
            let found = try await tokens.scgTokenGrant(digest: digest)
            held.withLock { table in
                var entries = (table[prefix] ?? []).filter { current - $0.loadedAt < maximumAge && $0.grant.digest != digest }
                if let found, ConstantTime.equals(found.digest, digest) { entries.append(Held(grant: found, loadedAt: current)) }
                table[prefix] = entries.isEmpty ? nil : entries
            }
            if let found, ConstantTime.equals(found.digest, digest) { match = found }
        }
        guard let match else { return .unknown }
        return match.account.disabled ? .disabled : .authenticated(match.account)
    }

    private static func prefix(_ digest: [UInt8]) -> UInt64 {
        digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
