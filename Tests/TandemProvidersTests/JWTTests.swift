import Foundation
import Testing
import TandemCrypto
@testable import TandemProviders

/// `SigningKey` and `JSONWebToken` (TandemCrypto), checked against the openssl CLI and Foundation's
/// base64, with keys made at test time.
@Suite("JSON Web Tokens and signing keys")
struct JWTTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func key(_ kind: OpenSSLTool.KeyKind, _ name: String) throws -> (pem: String, path: String) {
        let path = try OpenSSLTool.generateKey(kind, at: directory.path + "/" + name)
        return (try String(contentsOfFile: path, encoding: .utf8), path)
    }

    @Test("base64url equals Foundation's base64 with the URL alphabet and no padding, for every length")
    func base64URLMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected, "length \(length)")
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test("an ES256 token has the kid in its header and a raw r‖s signature that openssl verifies")
    func es256TokenVerifies() throws {
        let (pem, path) = try key(.ec("P-256"), "apns.p8")
        let publicKey = try OpenSSLTool.publicKey(of: path, to: directory.path + "/apns.pub")
        let signingKey = try SigningKey(pem: pem)
        #expect(signingKey.algorithm == .es256)
        let token = try JSONWebToken.sign(claims: #"{"iss":"DEF123GHIJ","iat":1700000000}"#,
                                          headerMembers: #""kid":"ABC123DEFG""#, with: signingKey)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(base64URLDecoded(parts[0]).map { String(decoding: $0, as: UTF8.self) }
                == #"{"alg":"ES256","typ":"JWT","kid":"ABC123DEFG"}"#)
        #expect(base64URLDecoded(parts[1]).map { String(decoding: $0, as: UTF8.self) }
                == #"{"iss":"DEF123GHIJ","iat":1700000000}"#)
        let signature = try #require(base64URLDecoded(parts[2]))
        #expect(signature.count == 64)
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        #expect(try OpenSSLTool.verify(sha256Signature: derECDSASignature(raw: signature), of: signingInput,
                                       publicKey: publicKey, in: directory))
        var tampered = signingInput
        tampered[tampered.count - 1] ^= 1
        #expect(try !OpenSSLTool.verify(sha256Signature: derECDSASignature(raw: signature), of: tampered,
                                        publicKey: publicKey, in: directory))
    }

    @Test("an RS256 token carries a PKCS#1 v1.5 signature of the modulus size that openssl verifies")
    func rs256TokenVerifies() throws {
        let (pem, path) = try key(.rsa(2048), "account.pem")
        let publicKey = try OpenSSLTool.publicKey(of: path, to: directory.path + "/account.pub")
        let signingKey = try SigningKey(pem: pem)
        #expect(signingKey.algorithm == .rs256)
        let token = try JSONWebToken.sign(claims: #"{"iss":"a@b.iam.gserviceaccount.com"}"#, with: signingKey)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(base64URLDecoded(parts[0]).map { String(decoding: $0, as: UTF8.self) } == #"{"alg":"RS256","typ":"JWT"}"#)
        let signature = try #require(base64URLDecoded(parts[2]))
        #expect(signature.count == 256)
        #expect(try OpenSSLTool.verify(sha256Signature: signature, of: Array((parts[0] + "." + parts[1]).utf8),
                                       publicKey: publicKey, in: directory))
    }

    @Test("the traditional BEGIN EC PRIVATE KEY form reads as the same ES256 key")
    func traditionalECForm() throws {
        let (_, path) = try key(.ec("P-256"), "pkcs8.pem")
        let traditional = String(decoding: try OpenSSLTool.run(["pkey", "-in", path, "-traditional"]), as: UTF8.self)
        #expect(traditional.contains("BEGIN EC PRIVATE KEY"))
        #expect(try SigningKey(pem: traditional).algorithm == .es256)
    }

    @Test("other 256-bit curves are refused: ES256 means P-256 only")
    func otherCurvesAreRefused() throws {
        for curve in ["secp256k1", "brainpoolP256r1", "P-384"] {
            let (pem, _) = try key(.ec(curve), "\(curve).pem")
            #expect(throws: CryptoError.self, "curve \(curve)") { try SigningKey(pem: pem) }
        }
    }

    @Test("short RSA keys, Ed25519, encrypted keys, public keys and non-PEM text are refused")
    func unusableKeysAreRefused() throws {
        let (rsa1024, _) = try key(.rsa(1024), "short.pem")
        let (ed25519, _) = try key(.ed25519, "ed.pem")
        let (_, p256Path) = try key(.ec("P-256"), "plain.pem")
        let encrypted = String(decoding: try OpenSSLTool.run(["pkcs8", "-topk8", "-in", p256Path, "-passout", "pass:secret"]),
                               as: UTF8.self)
        #expect(encrypted.contains("BEGIN ENCRYPTED PRIVATE KEY"))
        let publicOnly = try String(contentsOfFile: OpenSSLTool.publicKey(of: p256Path, to: directory.path + "/p.pub"),
                                    encoding: .utf8)
        for (name, pem) in [("RSA-1024", rsa1024), ("Ed25519", ed25519), ("encrypted", encrypted),
                            ("public", publicOnly), ("garbage", "not a key"), ("empty", "")] {
            #expect(throws: CryptoError.self, "\(name)") { try SigningKey(pem: pem) }
        }
    }

    @Test("one key signs from many tasks at once, and every signature verifies")
    func concurrentSigning() async throws {
        let (pem, path) = try key(.ec("P-256"), "shared.p8")
        let publicKey = try OpenSSLTool.publicKey(of: path, to: directory.path + "/shared.pub")
        let signingKey = try SigningKey(pem: pem)
        let signatures = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for index in 0..<64 {
                group.addTask { (index, try signingKey.sign(Array("message \(index)".utf8))) }
            }
            return try await group.reduce(into: [(Int, [UInt8])]()) { $0.append($1) }
        }
        #expect(signatures.count == 64)
        for (index, signature) in signatures.prefix(8) {
            #expect(try OpenSSLTool.verify(sha256Signature: derECDSASignature(raw: signature),
                                           of: Array("message \(index)".utf8), publicKey: publicKey, in: directory))
        }
        #expect(Set(signatures.map(\.1)).count == 64)
    }
}
