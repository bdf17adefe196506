import TandemCore
import TandemCrypto

/// The bearer token of an app user (``AppUser``): 32 random bytes as 64 lower-case hex digits, shown once
/// when the user is added; only its SHA-256 is stored.
public enum AppUserToken {
    /// A new token and the hash to store for it.
    public static func generate() -> (token: String, hash: String) {
        let token = Digest.hex(SecureRandom.bytes(32))
        return (token, hash(token))
    }

    /// SHA-256 of the token's UTF-8 bytes, as lower-case hex: what `app_users.token_hash` holds.
    public static func hash(_ token: String) -> String {
        Digest.hex(Digest.hash(.sha256, Array(token.utf8)))
    }
}
