import TandemCrypto
import TandemEngine

extension IdempotencyClaim {
    /// The claim of an HTTP request carrying `Idempotency-Key: key`: its digest covers the method and path
    /// (`target`), the body and the query, so the same key with any other request — of this API or another —
    /// is told apart (422), and a retry of the same one gets the first reply. Nil when the key is not 1–255
    /// printable ASCII characters (each API refuses that in its own words).
    static func request(key: String, target: String, body: [UInt8], query: String = "") -> IdempotencyClaim? {
        guard MessageIntake.isValidIdempotencyKey(key) else { return nil }
        let digest = Digest.hex(Digest.hash(.sha256, Array(target.utf8) + [0] + body + Array(query.utf8)))
        return IdempotencyClaim(key: key, digest: digest)
    }
}
