import Foundation
import Testing
import TandemCore
import TandemCrypto
@testable import TandemProviders

@Suite("APNs provider tokens")
struct APNsProviderTokensTests {
    let directory: TemporaryDirectory
    let keyPath: String
    let start = Timestamp(milliseconds: 1_700_000_000_500)

    init() throws {
        directory = try TemporaryDirectory()
        keyPath = try OpenSSLTool.generateKey(.ec("P-256"), at: directory.path + "/AuthKey.p8")
    }

    private func credentials(_ source: APNsKeySource? = nil) -> APNsCredentials {
        APNsCredentials(keySource: source ?? .file(keyPath), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: "com.example")
    }

    private func tokens(environment: @escaping @Sendable (String) -> String? = { _ in nil }) -> APNsProviderTokens {
        APNsProviderTokens(refreshInterval: .seconds(40 * 60), environment: environment)
    }

    /// The decoded header and claims of a compact JWT.
    private func parts(_ token: String) throws -> (header: String, claims: String, signature: [UInt8]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        return (String(decoding: try #require(base64URLDecoded(parts[0])), as: UTF8.self),
                String(decoding: try #require(base64URLDecoded(parts[1])), as: UTF8.self),
                try #require(base64URLDecoded(parts[2])))
    }

    @Test("the token names kid, iss and iat in whole seconds, and verifies with the key's public half")
    func claims() throws {
        let token = try tokens().token(for: credentials(), now: start)
        let (header, claims, signature) = try parts(token)
        #expect(header == #"{"alg":"ES256","typ":"JWT","kid":"ABC123DEFG"}"#)
        #expect(claims == #"{"iss":"DEF123GHIJ","iat":1700000000}"#)
        let publicKey = try OpenSSLTool.publicKey(of: keyPath, to: directory.path + "/pub.pem")
        let input = Array(token.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        #expect(try OpenSSLTool.verify(sha256Signature: derECDSASignature(raw: signature), of: input,
                                       publicKey: publicKey, in: directory))
    }

    @Test("one token per refresh interval: reused up to 40 minutes, replaced at 40")
    func refreshInterval() throws {
        let cache = tokens()
        let first = try cache.token(for: credentials(), now: start)
        for minute in 0..<40 {
            #expect(try cache.token(for: credentials(), now: start + .seconds(minute * 60 + 59)) == first)
        }
        #expect(cache.issued == 1)
        let second = try cache.token(for: credentials(), now: start + .seconds(40 * 60))
        #expect(second != first)
        #expect(cache.issued == 2)
        #expect(try cache.token(for: credentials(), now: start + .seconds(41 * 60)) == second)
        #expect(try cache.token(for: credentials(), now: start + .seconds(30 * 60)) != second, "the clock went back: re-signed")
    }

    @Test("renewing replaces only the stale token: concurrent renewals sign once")
    func renew() throws {
        let cache = tokens()
        let stale = try cache.token(for: credentials(), now: start)
        let renewed = try cache.renew(for: credentials(), replacing: stale, now: start + .seconds(1))
        #expect(renewed != stale)
        #expect(try cache.renew(for: credentials(), replacing: stale, now: start + .seconds(2)) == renewed)
        #expect(try cache.token(for: credentials(), now: start + .seconds(3)) == renewed)
        #expect(cache.issued == 2)
    }

    @Test("each key has its own token; a replaced key file is read again at once")
    func keysAndReplacement() throws {
        let cache = tokens()
        let first = try cache.token(for: credentials(), now: start)
        var otherTeam = credentials()
        otherTeam.teamID = "XYZ123GHIJ"
        #expect(try cache.token(for: otherTeam, now: start) != first)
        #expect(cache.issued == 2)

        let replacement = try OpenSSLTool.generateKey(.ec("P-256"), at: directory.path + "/new.p8")
        #expect(rename(replacement, keyPath) == 0)
        let afterReplacement = try cache.token(for: credentials(), now: start + .seconds(5))
        #expect(afterReplacement != first)
        let publicKey = try OpenSSLTool.publicKey(of: keyPath, to: directory.path + "/new.pub")
        let input = Array(afterReplacement.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        #expect(try OpenSSLTool.verify(sha256Signature: derECDSASignature(raw: try parts(afterReplacement).signature),
                                       of: input, publicKey: publicKey, in: directory), "signed with the new key")

        #expect(unlink(keyPath) == 0)
        #expect(try cache.token(for: credentials(), now: start + .seconds(6)) == afterReplacement,
                "a vanished file keeps the cached key")
    }

    @Test("keys from the environment; missing, malformed or non-P-256 keys are errors")
    func sourcesAndErrors() throws {
        let pem = try String(contentsOfFile: keyPath, encoding: .utf8)
        let rsaPath = try OpenSSLTool.generateKey(.rsa(2048), at: directory.path + "/rsa.pem")
        let rsa = try String(contentsOfFile: rsaPath, encoding: .utf8)
        let oneLine = pem.trimmingCharacters(in: .newlines).replacingOccurrences(of: "\n", with: "\\n")
        let cache = tokens(environment: {
            ["APNS_KEY": pem, "ONE_LINE": oneLine, "BROKEN": "-----BEGIN PRIVATE KEY-----", "RSA": rsa][$0]
        })
        #expect(try !cache.token(for: credentials(.environment("APNS_KEY")), now: start).isEmpty)
        #expect(!oneLine.contains("\n"))
        #expect(try !cache.token(for: credentials(.environment("ONE_LINE")), now: start).isEmpty)
        #expect(throws: PushKeyError.environmentVariableUnset(name: "UNSET")) {
            try cache.token(for: credentials(.environment("UNSET")), now: start)
        }
        #expect(throws: PushKeyError.fileUnreadable(path: "/nonexistent.p8")) {
            try cache.token(for: credentials(.file("/nonexistent.p8")), now: start)
        }
        for name in ["BROKEN", "RSA"] {
            let error = #expect(throws: PushKeyError.self, "\(name)") {
                try cache.token(for: credentials(.environment(name)), now: start)
            }
            guard case .invalidKey = error else {
                Issue.record("\(name): \(String(describing: error))")
                continue
            }
        }
    }
}
