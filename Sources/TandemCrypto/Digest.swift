import CCrypto
import Synchronization

/// Message digests and MACs from libcrypto (OpenSSL 3's one-shot `EVP_Digest`; HMAC through `EVP_MAC`).
public enum Digest {
    public enum Algorithm: Sendable, Hashable {
        case sha1
        case sha256

        fileprivate var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            }
        }

        fileprivate var name: String {
            switch self {
            case .sha1: "SHA1"
            case .sha256: "SHA256"
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

    /// HMAC of `message` under `key`. Each key's HMAC context is prepared once and kept (see ``HMACTemplates``);
    /// a message is hashed in a copy of it. OpenSSL 3's one-shot `HMAC()` fetched the algorithms by name and
    /// hashed the key on every call (~1.5 µs; the copy is a fraction of that).
    public static func hmac(_ algorithm: Algorithm, key: [UInt8], message: [UInt8]) -> [UInt8] {
        guard let context = HMACTemplates.shared.context(algorithm, key: key) else {
            preconditionFailure("HMAC context could not be created")
        }
        defer { EVP_MAC_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length = 0
        let updated = message.withUnsafeBytes { bytes in
            EVP_MAC_update(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        let finished = EVP_MAC_final(context, &output, &length, output.count)
        precondition(updated == 1 && finished == 1 && length == algorithm.byteCount, "HMAC failed")
        return Array(output.prefix(length))
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
    /// OpenSSL's DRBG as a `RandomNumberGenerator`: seeded from the kernel and drawn in user space, so a draw
    /// costs no system call (`SystemRandomNumberGenerator` makes a `getrandom` call per draw — two per message
    /// id, ~0.6 µs of every accepted message).
    public struct Generator: RandomNumberGenerator, Sendable {
        public init() {}

        public mutating func next() -> UInt64 {
            var value: UInt64 = 0
            let ok = withUnsafeMutableBytes(of: &value) {
                RAND_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32($0.count))
            }
            precondition(ok == 1, "RAND_bytes failed")
            return value
        }
    }

    public static func bytes(_ count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        let ok = output.withUnsafeMutableBytes { RAND_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count)) }
        precondition(ok == 1, "RAND_bytes failed")
        return output
    }
}

/// Keyed HMAC contexts by algorithm and key, each used only as a template to copy (`EVP_MAC_CTX_dup`) under
/// the lock, so no context is ever shared by two threads. Bounded: with more than `capacity` keys it starts
/// again empty (keys are app secrets and configured keys — a handful).
final class HMACTemplates: Sendable {
    static let shared = HMACTemplates(capacity: 1_024)

    private struct Key: Hashable {
        let algorithm: Digest.Algorithm
        let key: [UInt8]
    }

    /// Owns one `EVP_MAC_CTX`.
    private final class Template {
        let context: OpaquePointer
        init(_ context: OpaquePointer) { self.context = context }
        deinit { EVP_MAC_CTX_free(context) }
    }

    private let capacity: Int
    private let templates = Mutex<[Key: Template]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// A fresh context keyed with `key`, ready for the message (the caller frees it); nil if OpenSSL failed.
    func context(_ algorithm: Digest.Algorithm, key: [UInt8]) -> OpaquePointer? {
        templates.withLock { templates -> OpaquePointer? in
            let id = Key(algorithm: algorithm, key: key)
            if templates[id] == nil {
                let created = key.withUnsafeBytes { bytes in
                    tandem_hmac_context(algorithm.name, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
                }
                guard let created else { return nil }
                if templates.count >= capacity { templates.removeAll() }
                templates[id] = Template(created)
            }
            return templates[id].flatMap { EVP_MAC_CTX_dup($0.context) }
        }
    }
}
