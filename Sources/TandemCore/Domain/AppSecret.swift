/// The shared secret an app's SDK signs its API requests with (HMAC-SHA1, spec "Request requirements").
///
/// Generated secrets are 32 random bytes in unpadded base64url (43 characters). The value is never
/// printed by `description`, so it cannot leak into logs by string interpolation.
public struct AppSecret: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    /// Wraps an existing secret; nil when empty or over 256 characters.
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 256 else { return nil }
        self.text = text
    }

    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> AppSecret {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        var out: [UInt8] = []
        out.reserveCapacity(43)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for byte in chunk { value = value << 8 | UInt32(byte) }
            value <<= UInt32(8 * (3 - chunk.count))
            for position in 0...chunk.count {
                out.append(alphabet[Int((value >> UInt32(18 - 6 * position)) & 0x3F)])
            }
            index += 3
        }
        return AppSecret(uncheckedText: String(decoding: out, as: UTF8.self))
    }

    private init(uncheckedText: String) { self.text = uncheckedText }

    public var description: String { "****" }
}
