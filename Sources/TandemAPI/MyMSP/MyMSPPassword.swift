import TandemCrypto

/// A myMSP user's password as stored: a random 16-byte salt and SHA-256 over salt and password, both hex.
/// A fast hash, on purpose: `send` checks the password on every request, and the password is a machine
/// credential — choose a long random one (it is not a human's password that a slow hash would protect).
/// Compared in constant time.
public enum MyMSPPassword {
    public static func hash(_ password: String) -> (salt: String, hash: String) {
        var generator = SecureRandom.Generator()
        let salt = Digest.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return (salt, hash(password, salt: salt))
    }

    public static func hash(_ password: String, salt: String) -> String {
        Digest.hex(Digest.hash(.sha256, Array(salt.utf8) + [0] + Array(password.utf8)))
    }

    public static func matches(_ password: String, salt: String, hash stored: String) -> Bool {
        ConstantTime.equals(Array(hash(password, salt: salt).utf8), Array(stored.utf8))
    }
}
