/// Compact JSON Web Tokens (RFC 7519) signed with a ``SigningKey``: `base64url(header).base64url(claims).base64url(signature)`.
///
/// The caller gives the header's extra members and the claims as ready JSON object text (so no JSON
/// library is needed here); `alg` and `typ` are written first by this type.
/// Not guaranteed: that the given JSON is well-formed — it is signed as it is.
public enum JSONWebToken {
    /// A signed token. `headerMembers` is extra header members without braces, e.g. `"kid":"ABC123DEFG"`.
    public static func sign(claims: String, headerMembers: String = "", with key: SigningKey) throws(CryptoError) -> String {
        let header = "{\"alg\":\"\(key.algorithm.rawValue)\",\"typ\":\"JWT\"" + (headerMembers.isEmpty ? "" : "," + headerMembers) + "}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 §5), as JOSE uses it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in stride(from: 18, through: 0, by: -6) { out.append(alphabet[Int(value >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(value >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
