import Foundation
import Testing
@testable import TandemCore

@Suite("Strict JSON syntax")
struct JSONSyntaxTests {
    @Test("well-formed documents pass", arguments: [
        "{}", "[]", " \n{\"a\": [1, -2.5e+3, 0, 0.5, true, false, null, \"x\\u00e9\\n\"], \"b\": {}}\n", "\"text\"", "12",
        "{\"_comment\": \"é ✓\", \"k\": [[], [{}]]}",
    ])
    func wellFormed(text: String) {
        #expect(JSONSyntax.check(Data(text.utf8)) == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil)
    }

    @Test("each mistake is named at its line and column", arguments: [
        ("{\"a\": 1,}", "1:8: trailing comma before '}'"),
        ("{\n  \"a\": 1,\n  \"b\": 2,\n}\n", "3:9: trailing comma before '}'"),
        ("[1, 2,]", "1:6: trailing comma before ']'"),
        ("{\"a\": 1 // note\n}", "1:9: expected ',' or '}' after a member, got '/'"),
        ("// note\n{}", "1:1: comments are not JSON (write a \"_key\": \"comment\" entry instead)"),
        ("{\"a\": NaN}", "1:7: expected a value, got 'N'"),
        ("{\"a\": Infinity}", "1:7: expected a value, got 'I'"),
        ("{'a': 1}", "1:2: expected a key in double quotes, got '''"),
        ("{\"a\": 01}", "1:8: numbers do not start with 0"),
        ("{\"a\": 1.}", "1:9: expected a digit after '.'"),
        ("{\"a\": \"x\ny\"}", "1:9: line break inside a string (missing '\"'?)"),
        ("{\"a\": \"\\q\"}", "1:9: invalid escape \\'q'"),
        ("{\"a\" 1}", "1:6: expected ':' after the key, got '1'"),
        ("{\"a\": 1} x", "1:10: unexpected 'x' after the end of the document"),
        ("{\"a\": [1, 2}", "1:12: expected ',' or ']' after an element, got '}'"),
        ("{\"a\": tru}", "1:7: expected a value, got 't'"),
        ("", "1:1: expected a value, got the end of file"),
        ("{\"a\": \"open", "1:12: unterminated string"),
    ])
    func mistakes(text: String, expected: String) {
        #expect(JSONSyntax.check(Data(text.utf8))?.description == expected)
    }

    @Test("a configuration with a trailing comma is refused as file:line:column: problem, not silently accepted")
    func trailingCommaInConfiguration() {
        let json = "{\n  \"listen\": \"127.0.0.1:8080\",\n  \"log\": {\"level\": \"debug\",},\n}\n"
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil, "Foundation alone would accept it")
        #expect(testConfigurationProblem(json) == "Config/test.json:3:27: trailing comma before '}'")
    }

    @Test("a policy file gets the same check")
    func policyFileSyntax() throws {
        var files: [String: Data] = [:]
        for type in AppMessageType.allCases {
            files[PolicySet.fileName(for: type)] = try Data(contentsOf: Self.repository.appendingPathComponent("Policies/" + PolicySet.fileName(for: type)))
        }
        let otp = String(decoding: try #require(files["otp.json"]), as: UTF8.self)
        let broken = otp.replacingOccurrences(of: "}", with: ",}", options: .backwards,
                                              range: otp.range(of: "}", options: .backwards))
        files["otp.json"] = Data(broken.utf8)
        #expect(throws: ConfigurationError.self) { try PolicySet.decode(files: files, directory: "Policies") }
        do {
            _ = try PolicySet.decode(files: files, directory: "Policies")
        } catch {
            #expect(error.description.hasPrefix("Policies/otp.json:"))
            #expect(error.description.hasSuffix(": trailing comma before '}'"))
            #expect(error.position != nil)
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
