import Foundation
import Synchronization
import TandemCore
import TandemCrypto

/// The app API's request signature (spec: "Hybrid Messaging API", request requirements):
/// `Authorization: MAC kid="<appKey>" ts="<unix seconds>" mac="<base64 HMAC-SHA1(appSecret, S)>"` with
/// `S = "<METHOD> <request-target> HTTP/1.1\n<host>\n<ts>\n"`.
///
/// Real SDKs sign a host name fixed at build time rather than the `Host` header, and sign the
/// request-target before percent-encoding spaces, so a verifier is given every acceptable host and
/// request-target and accepts a signature over any combination. MACs are compared in constant time.
public enum MACAuthentication {
    /// The parsed `Authorization` header.
    public struct Credentials: Sendable, Hashable {
        public let kid: String
        public let timestamp: Int64
        public let mac: String
    }

    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case missingHeader
        case malformed(String)
        case unknownKey
        case outsideWindow
        case replayed
        case badSignature

        public var description: String {
            switch self {
            case .missingHeader: "the Authorization header is missing"
            case .malformed(let detail): "the Authorization header is malformed: \(detail)"
            case .unknownKey: "kid names no app"
            case .outsideWindow: "ts is outside the allowed window"
            case .replayed: "this signature was already used"
            case .badSignature: "mac does not match the request"
            }
        }
    }

    /// Parses `MAC kid="…" ts="…" mac="…"` (parameters in any order, separated by spaces and/or commas;
    /// the scheme in any casing). Every parameter is required exactly once.
    public static func parse(_ header: String) -> Result<Credentials, Failure> {
        // Byte by byte over the UTF-8 (this runs on every request); names and separators are ASCII.
        var header = header
        return header.withUTF8 { parse($0) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Credentials, Failure> {
        let isSeparator: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x2C || $0 == 0x09 }
        var index = 0, end = bytes.count
        while index < end, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        while end > index, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        guard end - index > 4, bytes[index] | 0x20 == 0x6D, bytes[index + 1] | 0x20 == 0x61, bytes[index + 2] | 0x20 == 0x63,
              bytes[index + 3] == 0x20 else {
            return .failure(.malformed("expected the MAC scheme"))
        }
        index += 4
        var kid: String?, ts: String?, mac: String?
        while true {
            while index < end, isSeparator(bytes[index]) { index += 1 }
            if index == end { break }
            guard let equals = bytes[index..<end].firstIndex(of: 0x3D) else { return .failure(.malformed("expected name=\"value\"")) }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<equals]), as: UTF8.self).lowercased()
            index = equals + 1
            guard index < end, bytes[index] == 0x22, let close = bytes[(index + 1)..<end].firstIndex(of: 0x22) else {
                return .failure(.malformed("the value of \(name) must be quoted"))
            }
            let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<close]), as: UTF8.self)
            index = close + 1
            switch name {
            case "kid":
                guard kid == nil else { return .failure(.malformed("kid appears twice")) }
                kid = value
            case "ts":
                guard ts == nil else { return .failure(.malformed("ts appears twice")) }
                ts = value
            case "mac":
                guard mac == nil else { return .failure(.malformed("mac appears twice")) }
                mac = value
            default:
                continue  // an extension parameter: ignored
            }
        }
        guard let kid, !kid.isEmpty else { return .failure(.malformed("kid is missing")) }
        guard let tsText = ts, let timestamp = Int64(tsText), timestamp >= 0 else {
            return .failure(.malformed("ts must be unix seconds"))
        }
        guard let mac, !mac.isEmpty else { return .failure(.malformed("mac is missing")) }
        return .success(Credentials(kid: kid, timestamp: timestamp, mac: mac))
    }

    /// The base64 HMAC-SHA1 over the signed string.
    public static func signature(secret: String, method: String, target: String, host: String, timestamp: Int64) -> String {
        var signed: [UInt8] = []
        appendSignedString(method: method, target: target, host: host, timestamp: String(timestamp), to: &signed)
        return Data(Digest.hmac(.sha1, key: Array(secret.utf8), message: signed)).base64EncodedString()
    }

    /// `S = "<METHOD> <request-target> HTTP/1.1\n<host>\n<ts>\n"`, appended to `out` as UTF-8.
    private static func appendSignedString(method: String, target: String, host: String, timestamp: String,
                                           to out: inout [UInt8]) {
        out.append(contentsOf: method.utf8)
        out.append(0x20)
        out.append(contentsOf: target.utf8)
        out.append(contentsOf: " HTTP/1.1\n".utf8)
        out.append(contentsOf: host.utf8)
        out.append(0x0A)
        out.append(contentsOf: timestamp.utf8)
        out.append(0x0A)
    }

    /// Whether `credentials` sign this request under `secret` for any of `targets` × `hosts`, tried in
    /// order (put the likeliest first). Each comparison takes constant time; stopping at the first match
    /// reveals only which combination the client signed, nothing about the secret or the expected MAC.
    ///
    /// Each candidate's HMAC is base64-encoded (in a stack buffer) and compared with the presented text, so
    /// only the canonical spelling is accepted (another spelling of the same bytes would slip past the replay
    /// guard, which keeps the text). Each candidate's signed string is built in one reused buffer.
    ///
    /// With a `cache`, a combination that verified before is compared with its remembered signature instead of
    /// computing the HMAC again (still in constant time); a combination that verifies is remembered.
    public static func matches(_ credentials: Credentials, secret: String, method: String, targets: some Sequence<String>,
                               hosts: some Sequence<String>, cache: SignatureCache? = nil) -> Bool {
        var presented = credentials.mac
        return presented.withUTF8 { presented in
            let presented = UnsafeRawBufferPointer(presented)
            if let cache {
                for target in targets {
                    for host in hosts {
                        let key = SignatureCache.Key(secret: secret, method: method, target: target, host: host,
                                                     timestamp: credentials.timestamp)
                        if cache.matches(key, presented) { return true }
                    }
                }
            }
            let key = Array(secret.utf8)
            let timestamp = String(credentials.timestamp)
            var signed: [UInt8] = []
            signed.reserveCapacity(256)  // one allocation for a typical signed string, instead of growing by doubling
            // The raw HMAC, then its base64 text.
            return withUnsafeTemporaryAllocation(byteCount: 96, alignment: 1) { scratch in
                let digest = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<32])
                let text = UnsafeMutableRawBufferPointer(rebasing: scratch[32...])
                for target in targets {
                    for host in hosts {
                        signed.removeAll(keepingCapacity: true)
                        appendSignedString(method: method, target: target, host: host, timestamp: timestamp, to: &signed)
                        let length = Digest.hmac(.sha1, key: key, message: signed, into: digest)
                        let encoded = Digest.base64(UnsafeRawBufferPointer(rebasing: digest[0..<length]), into: text)
                        let expected = UnsafeRawBufferPointer(rebasing: text[0..<encoded])
                        if ConstantTime.equals(expected, presented) {
                            cache?.remember(SignatureCache.Key(secret: secret, method: method, target: target, host: host,
                                                               timestamp: credentials.timestamp), signature: expected)
                            return true
                        }
                    }
                }
                return false
            }
        }
    }
}

/// Signatures that verified recently, by what they sign: every install of an app signs `PUT /v1.0/messages`
/// in the same second with the same `mac` (the signed string has no per-install part), so a busy app's
/// receipts share one HMAC per second instead of computing one each.
///
/// Only signatures that verified are kept, so a forged request always costs its HMACs and cannot fill the
/// cache. The key holds the secret: a rotated secret finds nothing under the old one. A presented `mac` is
/// compared with the remembered one in constant time, as with a computed one. Bounded: at `capacity`
/// entries it starts over (entries are useful only within their second), and a request-target longer than
/// `longestTarget` bytes (a long query) is not remembered.
public final class SignatureCache: Sendable {
    struct Key: Hashable {
        let secret: String
        let method: String
        let target: String
        let host: String
        let timestamp: Int64
    }

    /// The base64 text of a signature (28 bytes for HMAC-SHA1), inline.
    private struct Signature {
        var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
    }

    public let capacity: Int
    private let entries = Mutex<[Key: Signature]>([:])
    static let longestTarget = 256

    public init(capacity: Int = 4_096) {
        self.capacity = max(1, capacity)
    }

    /// Whether `presented` is the signature remembered for `key` (false when none is).
    func matches(_ key: Key, _ presented: UnsafeRawBufferPointer) -> Bool {
        guard var signature = entries.withLock({ $0[key] }) else { return false }
        let count = signature.count
        return withUnsafeBytes(of: &signature.bytes) { ConstantTime.equals(UnsafeRawBufferPointer(rebasing: $0[0..<count]), presented) }
    }

    /// Remembers `signature` (a verified one) for `key`. Longer than 32 bytes: not kept.
    func remember(_ key: Key, signature text: UnsafeRawBufferPointer) {
        var signature = Signature()
        guard text.count <= MemoryLayout.size(ofValue: signature.bytes), key.target.utf8.count <= Self.longestTarget else { return }
        withUnsafeMutableBytes(of: &signature.bytes) { $0.copyMemory(from: text) }
        signature.count = text.count
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = signature
        }
    }

    /// Signatures remembered (for tests).
    public var count: Int { entries.withLock { $0.count } }
}

/// Remembers every signature accepted within the timestamp window, so a captured request cannot be
/// replayed while its timestamp is still acceptable.
///
/// A signature covers only the method, target, host and second, and `kid` names the app, not the
/// install: every install of an app signs `PUT /v1.0/messages` in the same second with the same `mac`,
/// and one install acknowledging and then reading a message within a second does too. So what must not
/// repeat is the whole request — `(kid, ts, mac)` plus a fingerprint of what the signature leaves out
/// (the caller passes the `DeviceID`, body, `User-Agent` and client address): a replayed request is
/// refused, distinct requests sharing a signature are not.
///
/// Entries are 64-bit hashes (with a per-process random seed) filed under their `ts`, and a second's
/// entries are dropped as a whole once it is outside the window: memory is about 16 bytes times the
/// request rate times twice the window. Not guaranteed: telling apart two different requests whose
/// hashes collide (probability ~2^-64 per pair within one second).
public final class ReplayGuard: Sendable {
    private struct State {
        var seen: [Int64: Set<Int>] = [:]
        var oldest: Int64 = .max
    }

    private let windowSeconds: Int64
    private let state = Mutex(State())

    public init(window: Duration) {
        windowSeconds = max(1, window.components.seconds)
    }

    /// Checks the timestamp against `now` and records the request; `.outsideWindow` or `.replayed` when it
    /// must be refused. Call only for signatures that verified.
    public func admit(_ credentials: MACAuthentication.Credentials, fingerprint: some Hashable,
                      nowSeconds: Int64) -> MACAuthentication.Failure? {
        guard abs(nowSeconds - credentials.timestamp) <= windowSeconds else { return .outsideWindow }
        var hasher = Hasher()
        hasher.combine(credentials)
        hasher.combine(fingerprint)
        let entry = hasher.finalize()
        return state.withLock { state -> MACAuthentication.Failure? in
            let horizon = nowSeconds - windowSeconds
            if state.oldest < horizon {
                state.seen = state.seen.filter { $0.key >= horizon }
                state.oldest = state.seen.keys.min() ?? .max
            }
            guard state.seen[credentials.timestamp, default: []].insert(entry).inserted else { return .replayed }
            state.oldest = min(state.oldest, credentials.timestamp)
            return nil
        }
    }

    /// Signatures remembered (for tests and metrics).
    public var count: Int { state.withLock { $0.seen.values.reduce(0) { $0 + $1.count } } }
}
