import CCrypto
import Synchronization

/// Message digests and MACs from libcrypto (OpenSSL 3's one-shot `EVP_Digest`; HMAC through `EVP_MAC`).
public enum Digest {
    public enum Algorithm: Sendable, Hashable {
        case sha1
        case sha256

        /// The algorithm's implementation, fetched from the default provider once (see ``FetchedDigests``).
        fileprivate var evp: OpaquePointer? {
            switch self {
            case .sha1: FetchedDigests.shared.sha1
            case .sha256: FetchedDigests.shared.sha256
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
    /// a message is hashed in a context lent from it. OpenSSL 3's one-shot `HMAC()` fetched the algorithms by
    /// name and hashed the key on every call (~1.5 µs).
    public static func hmac(_ algorithm: Algorithm, key: [UInt8], message: [UInt8]) -> [UInt8] {
        withUnsafeTemporaryAllocation(byteCount: Int(EVP_MAX_MD_SIZE), alignment: 1) { output in
            let length = hmac(algorithm, key: key, message: message, into: output)
            return Array(output.prefix(length))
        }
    }

    /// ``hmac(_:key:message:)`` into `output` (at least `algorithm.byteCount` bytes); returns the length.
    public static func hmac(_ algorithm: Algorithm, key: [UInt8], message: [UInt8], into output: UnsafeMutableRawBufferPointer) -> Int {
        precondition(output.count >= algorithm.byteCount, "HMAC output buffer too small")
        guard let lease = HMACTemplates.shared.context(algorithm, key: key) else {
            preconditionFailure("HMAC context could not be created")
        }
        var length = 0
        let updated = message.withUnsafeBytes { bytes in
            EVP_MAC_update(lease.context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        let finished = EVP_MAC_final(lease.context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, output.count)
        precondition(updated == 1 && finished == 1 && length == algorithm.byteCount, "HMAC failed")
        HMACTemplates.shared.giveBack(lease)
        return length
    }

    /// Standard base64 with padding (`EVP_EncodeBlock`) of `bytes` into `output`, which must hold
    /// 4 × ⌈count / 3⌉ + 1 bytes (a NUL follows the text); returns the text's length.
    public static func base64(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        precondition(output.count >= (bytes.count + 2) / 3 * 4 + 1, "base64 output buffer too small")
        guard !bytes.isEmpty else { return 0 }
        return Int(EVP_EncodeBlock(output.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                   bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(bytes.count)))
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

/// Keyed HMAC contexts by algorithm and key: a template, copied (`EVP_MAC_CTX_dup`) when no spare context is
/// free, and the spares given back after use. A context is lent to one thread at a time, never shared.
/// Bounded: with more than `capacity` keys it starts again empty (keys are app secrets and configured keys —
/// a handful).
final class HMACTemplates: Sendable {
    static let shared = HMACTemplates(capacity: 1_024)

    private struct Key: Hashable {
        let algorithm: Digest.Algorithm
        let key: [UInt8]

        /// The key hashed as one run of bytes (an array's own hashing feeds the hasher one element at a time).
        func hash(into hasher: inout Hasher) {
            hasher.combine(algorithm)
            hasher.combine(key.count)
            key.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Owns one keyed `EVP_MAC_CTX` and the contexts lent from it and given back, ready to be keyed again
    /// (`EVP_MAC_init` with no key reuses the one set before) — a context is not copied and freed per
    /// message (a copy is ~5 allocations inside OpenSSL). `spares` is only touched under `templates`' lock.
    final class Template: @unchecked Sendable {
        let context: OpaquePointer
        var spares: [OpaquePointer] = []
        init(_ context: OpaquePointer) { self.context = context }
        deinit {
            EVP_MAC_CTX_free(context)
            for spare in spares { EVP_MAC_CTX_free(spare) }
        }
    }

    /// A context ready for one message, to be given back (``giveBack(_:)``) once its MAC is final.
    struct Lease {
        let context: OpaquePointer
        let template: Template
    }

    /// Spare contexts kept per key: about as many as threads computing MACs with it at once.
    private static let sparesPerKey = 8

    private let capacity: Int
    private let templates = Mutex<[Key: Template]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// A context keyed with `key`, ready for the message; nil if OpenSSL failed. A new context is copied from
    /// the template under the lock, so the template is never read by two threads at once.
    func context(_ algorithm: Digest.Algorithm, key: [UInt8]) -> Lease? {
        let (lease, recycled) = templates.withLock { templates -> (Lease?, Bool) in
            let id = Key(algorithm: algorithm, key: key)
            let template: Template
            if let found = templates[id] {
                template = found
                if let spare = found.spares.popLast() { return (Lease(context: spare, template: found), true) }
            } else {
                let created = key.withUnsafeBytes { bytes in
                    tandem_hmac_context(algorithm.name, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
                }
                guard let created else { return (nil, false) }
                if templates.count >= capacity { templates.removeAll() }
                template = Template(created)
                templates[id] = template
            }
            return (EVP_MAC_CTX_dup(template.context).map { Lease(context: $0, template: template) }, false)
        }
        guard let lease else { return nil }
        // A context given back holds a finished MAC: keyed again with the key it already has.
        if recycled, EVP_MAC_init(lease.context, nil, 0, nil) != 1 {
            EVP_MAC_CTX_free(lease.context)
            return nil
        }
        return lease
    }

    /// Takes a lent context back for the next message with the same key (or frees it when enough are kept).
    func giveBack(_ lease: Lease) {
        let kept = templates.withLock { _ -> Bool in
            guard lease.template.spares.count < Self.sparesPerKey else { return false }
            lease.template.spares.append(lease.context)
            return true
        }
        if !kept { EVP_MAC_CTX_free(lease.context) }
    }
}

/// The digest implementations `hash` uses, fetched once (`EVP_MD_fetch`) and kept for the life of the process.
/// OpenSSL 3 fetches the implementation of a legacy `EVP_sha256()` again on every `EVP_Digest`: a lookup in the
/// provider's method store under a lock, per hash.
///
/// `@unchecked Sendable`: a fetched `EVP_MD` is immutable and may be used by any number of threads at once.
private final class FetchedDigests: @unchecked Sendable {
    static let shared = FetchedDigests()
    let sha1: OpaquePointer?
    let sha256: OpaquePointer?

    private init() {
        sha1 = EVP_MD_fetch(nil, "SHA1", nil) ?? EVP_sha1()
        sha256 = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
    }
}
