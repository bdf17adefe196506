import CCrypto

/// Message digests and MACs from libcrypto (OpenSSL 3's one-shot `EVP_Digest` and `HMAC`).
public enum Digest {
    public enum Algorithm: Sendable {
        case sha1
        case sha256

        fileprivate var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            }
        }

        public var byteCount: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            }
        }
    }

    /// The digest of `bytes`.
    public static func hash(_ algorithm: Algorithm, _ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, algorithm.evp, nil)
        }
        precondition(ok == 1 && Int(length) == algorithm.byteCount, "EVP_Digest failed")
        return Array(output.prefix(Int(length)))
    }

    /// HMAC of `message` under `key`.
    public static func hmac(_ algorithm: Algorithm, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(algorithm.evp, keyBytes.baseAddress, Int32(keyBytes.count),
                     messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count, &output, &length)
            }
        }
        precondition(result != nil && Int(length) == algorithm.byteCount, "HMAC failed")
        return Array(output.prefix(Int(length)))
    }

    /// Lower-case hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Cryptographically secure random bytes (`RAND_bytes`).
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        let ok = output.withUnsafeMutableBytes { RAND_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count)) }
        precondition(ok == 1, "RAND_bytes failed")
        return output
    }
}
