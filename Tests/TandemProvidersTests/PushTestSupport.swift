import Foundation
import Synchronization
import TandemCore
import TandemTestSupport
@testable import TandemProviders

/// A clock that moves only when told to, and whose sleeps return at once after moving it to the deadline
/// (virtual time: a backoff of a minute takes no real time).
final class PushTestClock: SchedulerClock {
    private let state: Mutex<(now: Timestamp, sleeps: [Duration])>

    init(_ start: Timestamp) { state = Mutex((start, [])) }

    /// Starts `offset` before the real time (peers check `iat` against their own clock).
    convenience init(realTimeMinus offset: Duration) {
        self.init(Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1_000)) + (.zero - offset))
    }

    func now() -> Timestamp { state.withLock { $0.now } }

    func sleep(until deadline: Timestamp) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.sleeps.append(deadline - $0.now)
            $0.now = max($0.now, deadline)
        }
        await Task.yield()
    }

    func advance(by span: Duration) { state.withLock { $0.now = $0.now + span } }

    /// Every sleep asked for so far (the time each one skipped).
    var sleeps: [Duration] { state.withLock { $0.sleeps } }
}

/// Runs the `openssl` command-line tool (an implementation no one here wrote) for keys and verification.
enum OpenSSLTool {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The tool's standard output; throws when it exits with a non-zero status.
    @discardableResult
    static func run(_ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let process = try ChildProcess([try PeerProcess.requireExecutable("openssl")] + arguments,
                                       input: .bytes(input), output: .pipe, errors: .pipe)
        let data = process.readOutput()
        let problem = process.readErrors()
        let status = process.wait()
        guard status == .exited(0) else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(status): "
                          + String(decoding: problem, as: UTF8.self))
        }
        return data
    }

    /// A new private key in PKCS#8 PEM (`BEGIN PRIVATE KEY`, like Apple's `.p8`), written to `path`.
    @discardableResult
    static func generateKey(_ kind: KeyKind, at path: String) throws -> String {
        switch kind {
        case .ec(let curve):
            try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-out", path])
        case .rsa(let bits):
            try run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", path])
        case .ed25519:
            try run(["genpkey", "-algorithm", "ED25519", "-out", path])
        }
        return path
    }

    enum KeyKind {
        case ec(String)
        case rsa(Int)
        case ed25519
    }

    /// Writes the public half of the private key at `privatePath` to `path`.
    @discardableResult
    static func publicKey(of privatePath: String, to path: String) throws -> String {
        try run(["pkey", "-in", privatePath, "-pubout", "-out", path])
        return path
    }

    /// Whether `signature` (DER for ECDSA, raw for RSA) over `data` verifies with the public key at `path`.
    static func verify(sha256Signature signature: [UInt8], of data: [UInt8], publicKey path: String,
                       in directory: TemporaryDirectory) throws -> Bool {
        let name = UUID().uuidString
        let dataPath = try directory.write(data, to: name + ".data")
        let signaturePath = try directory.write(signature, to: name + ".sig")
        do {
            let output = try run(["dgst", "-sha256", "-verify", path, "-signature", signaturePath, dataPath])
            return String(decoding: output, as: UTF8.self).contains("Verified OK")
        } catch {
            return false
        }
    }
}

/// Decoding JOSE's unpadded base64url with Foundation's own base64 decoder.
func base64URLDecoded(_ text: Substring) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return Data(base64Encoded: standard).map(Array.init)
}

/// A JWS ECDSA signature (`r‖s`, 32 bytes each) as the DER `SEQUENCE { INTEGER r, INTEGER s }` openssl reads.
func derECDSASignature(raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop(while: { $0 == 0 }))
        if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[0..<32]) + integer(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
}

/// Reads a peer's JSON-lines log.
func jsonLines(at path: String) throws -> [[String: JSONValue]] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return try text.split(separator: "\n").map { line in
        try JSONDecoder().decode([String: JSONValue].self, from: Data(line.utf8))
    }
}

/// Any JSON value, for reading peers' logs in tests.
enum JSONValue: Decodable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case object([String: JSONValue])
    case array([JSONValue])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var int: Int? { if case .number(let value) = self { Int(exactly: value) } else { nil } }
    subscript(key: String) -> JSONValue? { if case .object(let members) = self { members[key] } else { nil } }
}

extension Policy {
    static let specOTP = PolicySet.specDefaults.otp
    static let specDefault = PolicySet.specDefaults.defaultPolicy
}

/// A GUID for test identifiers.
func testGUID() -> GUID {
    var generator = SystemRandomNumberGenerator()
    return GUID.random(using: &generator)
}
