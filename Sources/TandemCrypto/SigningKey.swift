import CCrypto

/// A private key read from PEM (PKCS#8 `BEGIN PRIVATE KEY`, as Apple's `.p8` files and Google's
/// service-account JSON hold them; or the traditional `BEGIN EC/RSA PRIVATE KEY` forms) that signs with
/// SHA-256 the way JSON Web Signatures need it: ES256 for a P-256 key (the raw 64-byte `r‖s`, not DER),
/// RS256 (PKCS#1 v1.5) for an RSA key of at least 2,048 bits.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never changed after `init`, and each signature uses its own
/// `EVP_MD_CTX`, which OpenSSL 3 allows concurrently on one key.
/// Not guaranteed: constant-time behaviour beyond what libcrypto provides.
public final class SigningKey: @unchecked Sendable {
    public enum Algorithm: String, Sendable, Hashable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    public let algorithm: Algorithm
    private let key: OpaquePointer

    /// Reads the first private key in `pem`. Throws when it is not PEM, encrypted (no pass phrase is ever
    /// asked for), or neither a P-256 EC key nor an RSA key of at least 2,048 bits.
    public init(pem: String) throws(CryptoError) {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = tandem_bio_from_buffer(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // An explicit callback: with none, OpenSSL asks for an encrypted key's pass phrase on the
            // controlling terminal (PEM_def_callback), which would block a server started from a shell.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        ERR_clear_error()
        guard let parsed else { throw .invalidKey("not a PEM private key (or an encrypted one)") }
        if tandem_pkey_is_ec(parsed) == 1, Self.isP256(parsed) {
            algorithm = .es256
        } else if tandem_pkey_is_rsa(parsed) == 1, EVP_PKEY_get_bits(parsed) >= 2048 {
            algorithm = .rs256
        } else {
            EVP_PKEY_free(parsed)
            throw .invalidKey("the key is neither a P-256 EC key nor an RSA key of at least 2048 bits")
        }
        key = parsed
    }

    /// True for the NIST P-256 curve only: other 256-bit curves (secp256k1, brainpoolP256r1) also have
    /// 256 bits but are not ES256.
    private static func isP256(_ key: OpaquePointer) -> Bool {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }

    deinit { EVP_PKEY_free(key) }

    /// The JWS signature of `message` (SHA-256): 64 bytes `r‖s` for ES256, the modulus size for RS256.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .failed("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw Self.failure("EVP_DigestSignInit") }
        var length = 0
        let sized = message.withUnsafeBufferPointer { EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }
        guard sized == 1 else { throw Self.failure("EVP_DigestSign") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count)
        }
        guard signed == 1 else { throw Self.failure("EVP_DigestSign") }
        signature.removeSubrange(length...)
        switch algorithm {
        case .rs256: return signature
        case .es256: return try Self.rawECDSA(fromDER: signature)
        }
    }

    /// ECDSA signatures come DER-encoded (`SEQUENCE { r, s }`); JWS wants r and s as 32 big-endian bytes each.
    private static func rawECDSA(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw failure("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { out in
            BN_bn2binpad(ECDSA_SIG_get0_r(parsed), out.baseAddress, 32) == 32
                && BN_bn2binpad(ECDSA_SIG_get0_s(parsed), out.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw failure("BN_bn2binpad") }
        return raw
    }

    private static func failure(_ call: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        return .failed("\(call) failed (OpenSSL error \(code))")
    }
}

public enum CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidKey(String)
    case failed(String)

    public var description: String {
        switch self {
        case .invalidKey(let why): "invalid key: \(why)"
        case .failed(let why): why
        }
    }
}
