import Foundation
import Testing
@testable import TandemCore

@Suite("Policies")
struct PolicyTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func shippedFiles() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for type in AppMessageType.allCases {
            let name = PolicySet.fileName(for: type)
            files[name] = try Data(contentsOf: Self.repositoryRoot.appendingPathComponent("Policies/\(name)"))
        }
        return files
    }

    @Test("the shipped Policies/ encode the spec's semantics")
    func shippedPoliciesMatchSpec() throws {
        let policies = try PolicySet.decode(files: shippedFiles(), directory: "Policies")
        #expect(policies == PolicySet.specDefaults)

        #expect(policies[.default].pushTTL == .providerMaximum)
        #expect(policies[.default].fallback == .init(onPushFailure: true))
        #expect(policies[.otp].pushTTL == .limited(.seconds(30)))
        #expect(policies[.otp].lifetime == .limited(.seconds(30)))
        #expect(policies[.otp].manualFallback == .terminatePush)
        #expect(policies[.otp].fallback.afterNoRead == nil)
        #expect(policies[.critical].fallback.afterNoRead == .seconds(30))
        #expect(policies[.critical].fallback.afterNoDeliveryAck == .seconds(30))
    }

    private func problem(replacing name: String, with json: String) throws -> String? {
        var files = try shippedFiles()
        files[name] = Data(json.utf8)
        do {
            _ = try PolicySet.decode(files: files, directory: "Policies")
            return nil
        } catch {
            return error.description
        }
    }

    static let otpBase = #""appMessageType": "OTP", "pushTTL": "30s", "pushPriority": "high", "lifetime": "30s", "manualFallback": "terminatePush""#

    @Test("every kind of bad policy yields its file: key: problem", arguments: [
        ("otp.json", "nope", "Policies/otp.json:1:1: expected a value, got 'n'"),
        ("otp.json", #"{\#(otpBase), "fallback": {"onPushFailure": true}, "ttl": "1s"}"#,
         #"Policies/otp.json: ttl: unknown key"#),
        ("otp.json", #"{\#(otpBase), "fallback": {"onPushFailure": true, "afterNoReed": "1s"}}"#,
         #"Policies/otp.json: fallback.afterNoReed: unknown key (did you mean "afterNoRead"?)"#),
        ("otp.json", #"{\#(otpBase)}"#, "Policies/otp.json: fallback: missing"),
        ("otp.json", #"{\#(otpBase), "fallback": {}}"#, "Policies/otp.json: fallback.onPushFailure: missing"),
        ("otp.json", #"{\#(otpBase), "fallback": {"onPushFailure": "yes"}}"#,
         "Policies/otp.json: fallback.onPushFailure: expected true or false"),
        ("otp.json", #"{\#(otpBase), "fallback": {"onPushFailure": true, "afterNoRead": "soon"}}"#,
         #"Policies/otp.json: fallback.afterNoRead: expected a duration like "500ms", "30s", "10m", "2h" or "7d", got "soon""#),
        ("otp.json", #"{\#(otpBase), "fallback": {"onPushFailure": true, "afterNoRead": "30s"}}"#,
         "Policies/otp.json: fallback.afterNoRead: must be shorter than lifetime (30s), or it could never fire"),
        ("otp.json", #"{\#(otpBase.replacingOccurrences(of: #""pushTTL": "30s""#, with: #""pushTTL": "60s""#)), "fallback": {"onPushFailure": true}}"#,
         "Policies/otp.json: pushTTL: must not exceed lifetime (30s)"),
        ("otp.json", #"{\#(otpBase.replacingOccurrences(of: #""lifetime": "30s""#, with: #""lifetime": "90d""#)), "fallback": {"onPushFailure": true}}"#,
         #"Policies/otp.json: lifetime: must be between 1s and 28d, got "90d""#),
        ("otp.json", #"{\#(otpBase.replacingOccurrences(of: "high", with: "urgent")), "fallback": {"onPushFailure": true}}"#,
         #"Policies/otp.json: pushPriority: expected "high" or "normal", got "urgent""#),
        ("otp.json", #"{\#(otpBase.replacingOccurrences(of: "terminatePush", with: "cancel")), "fallback": {"onPushFailure": true}}"#,
         #"Policies/otp.json: manualFallback: expected one of "notAllowed", "keepPush", "terminatePush", got "cancel""#),
        ("otp.json", #"{\#(otpBase.replacingOccurrences(of: #""OTP""#, with: #""Critical""#)), "fallback": {"onPushFailure": true}}"#,
         #"Policies/otp.json: appMessageType: expected "OTP" in otp.json, got "Critical""#),
        ("otp.json", #"{\#(otpBase.replacingOccurrences(of: #""OTP""#, with: #""Urgent""#)), "fallback": {"onPushFailure": true}}"#,
         #"Policies/otp.json: appMessageType: expected one of "Default", "OTP", "Critical", got "Urgent""#),
        ("sms.json", "{}", "Policies/sms.json: (document): unexpected policy file"),
    ])
    func badPolicies(file: String, json: String, expected: String) throws {
        let message = try problem(replacing: file, with: json)
        #expect(message?.hasPrefix(expected) == true, "got \(message ?? "no error")")
    }

    @Test("a missing policy file is named")
    func missingFile() throws {
        var files = try shippedFiles()
        files["critical.json"] = nil
        #expect(throws: ConfigurationError(file: "Policies/critical.json", key: "", problem: "missing: every appMessageType needs a policy")) {
            try PolicySet.decode(files: files, directory: "Policies")
        }
    }

    @Test("the message type is case-insensitive in a policy, as on the wire")
    func caseInsensitiveType() throws {
        let json = #"{\#(Self.otpBase.replacingOccurrences(of: #""OTP""#, with: #""otp""#)), "fallback": {"onPushFailure": true}}"#
        #expect(try problem(replacing: "otp.json", with: json) == nil)
    }
}
