import TandemCore
import TandemCrypto

/// Derives verification PINs from a challenge's nonce with a server key: `PIN = HMAC-SHA256(key, nonce)`
/// read as a number, modulo 10^length, zero-padded. The database holds only nonces, so it reveals no
/// PIN without the key (a plain hash of a 4-digit PIN would fall to 10,000 guesses), and the same PIN can
/// be sent again while its challenge is valid.
///
/// Not guaranteed: uniformity beyond the negligible modulo bias of a 64-bit value over 10^length.
public struct PinCodec: Sendable {
    private let key: [UInt8]

    /// `key` should be at least 32 random bytes, kept outside the database.
    public init(key: [UInt8]) {
        precondition(!key.isEmpty, "a PIN key is required")
        self.key = key
    }

    /// A fresh random nonce (128 bits, hex).
    public static func newNonce() -> String { Digest.hex(SecureRandom.bytes(16)) }

    public func pin(for nonce: String, length: Int) -> String {
        let mac = Digest.hmac(.sha256, key: key, message: Array(nonce.utf8))
        var value: UInt64 = 0
        for byte in mac.prefix(8) { value = value << 8 | UInt64(byte) }
        var modulus: UInt64 = 1
        for _ in 0..<length { modulus *= 10 }
        let digits = String(value % modulus)
        return String(repeating: "0", count: max(0, length - digits.count)) + digits
    }

    /// Whether `code` (as the app sent it, surrounding spaces ignored) is the challenge's PIN; compared in
    /// constant time.
    public func matches(_ code: String, challenge: PinChallenge, length: Int) -> Bool {
        ConstantTime.equals(Array(code.trimmingASCIISpaces().utf8), Array(pin(for: challenge.nonce, length: length).utf8))
    }
}
