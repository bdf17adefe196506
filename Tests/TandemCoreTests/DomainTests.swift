import Testing
@testable import TandemCore

@Suite("Domain types")
struct DomainTests {
    @Test("MSISDNs are normalised once to +digits", arguments: [
        ("00447911123456", "+447911123456"), ("+447911123456", "+447911123456"),
        (" +31 6 1234 5678 ", "+31612345678"), ("0031-6-12345678", "+31612345678"),
        ("\t+123456789012345\r\n", "+123456789012345"), ("+12345678", "+12345678"),
    ])
    func msisdnNormalisation(input: String, expected: String) {
        #expect(MSISDN(input)?.e164 == expected)
    }

    @Test("malformed numbers are refused", arguments: [
        "0612345678", "447911123456", "+", "00", "+0447911123456", "+12345", "+1234567890123456",
        "+44 7911 12345a", "+44--7911123456", "+ 447911123456", "+447911123456 -", "+44(0)7911123456",
        "00 447911123456", "+1234567", "+44 7911 12345６", "++447911123456", "0044 7911-123456-", "",
    ])
    func msisdnRejects(input: String) {
        #expect(MSISDN(input) == nil)
    }

    @Test("MSISDNs are masked in logs and descriptions")
    func msisdnMasking() throws {
        let number = try #require(MSISDN("+31612345678"))
        #expect(number.masked == "+3161****678")
        #expect("\(number)" == "+3161****678")
        #expect(number.digits == "31612345678")
    }

    @Test("GUIDs parse in either case and print in lower case")
    func guidParsing() {
        #expect(GUID("0F8FAD5B-D9CB-469F-A165-70867728950E")?.text == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(GUID("0f8fad5bd9cb469fa16570867728950e") == nil)
        #expect(GUID("{0f8fad5b-d9cb-469f-a165-70867728950e}") == nil)
        #expect(GUID("0f8fad5b-d9cb-469f-a165-70867728950g") == nil)
        #expect(GUID("0f8fad5b-d9cb-469f-a165_70867728950e") == nil)
    }

    @Test("generated GUIDs are well-formed version 4 and differ")
    func guidGeneration() {
        var generator = SplitMix64(seed: 42)
        let values = (0..<1_000).map { _ in GUID.random(using: &generator) }
        #expect(Set(values).count == 1_000)
        for value in values {
            #expect(GUID(value.text) == value)
            let characters = Array(value.text)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
        }
    }

    @Test("time-ordered GUIDs are version 7: the time in the first 48 bits, text order follows time")
    func timeOrderedGUIDs() {
        var generator = SplitMix64(seed: 9)
        // RFC 9562 appendix A.6: 0x017F22E279B0 = 2022-02-22 19:22:22 UTC.
        let example = GUID.timeOrdered(unixMilliseconds: 0x017F_22E2_79B0, using: &generator)
        #expect(example.text.hasPrefix("017f22e2-79b0-7"))
        #expect("89ab".contains(Array(example.text)[19]))
        #expect(GUID(example.text) == example)
        let times: [Int64] = [0, 1, 999, 1_000, 1_795_000_000_000, 1_795_000_000_001, 0xFFFF_FFFF_FFFF]
        let values = times.map { GUID.timeOrdered(unixMilliseconds: $0, using: &generator) }
        #expect(values == values.sorted())
        #expect(values.map(\.text) == values.map(\.text).sorted())
        let sameMillisecond = (0..<1_000).map { _ in GUID.timeOrdered(unixMilliseconds: 42, using: &generator) }
        #expect(Set(sameMillisecond).count == 1_000)
    }

    @Test("product tokens and app secrets never print their secret")
    func secretsDoNotPrint() throws {
        var generator = SplitMix64(seed: 7)
        let token = ProductToken.random(using: &generator)
        #expect(!"\(token)".contains(token.text))
        #expect("\(token)".hasPrefix(String(token.text.prefix(8))))
        let secret = AppSecret.random(using: &generator)
        #expect("\(secret)" == "****")
        #expect(secret.text.count == 43)
        #expect(secret.text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(ProductToken(" \(token.text.uppercased()) ") == token)
    }

    @Test("message types and channels parse in any casing with stray spaces")
    func wireNames() {
        #expect(AppMessageType(wireName: "critical") == .critical)
        #expect(AppMessageType(wireName: " otp ") == .otp)
        #expect(AppMessageType(wireName: "DEFAULT") == .default)
        #expect(AppMessageType(wireName: "Urgent") == nil)
        #expect(Channel(wireName: " push") == .push)
        #expect(Channel(wireName: "sms ") == .sms)
        #expect(Channel(wireName: "WhatsApp") == nil)
    }

    @Test("durations parse with units and format back", arguments: [
        ("2ms", Duration.milliseconds(2)), ("30s", .seconds(30)), ("10m", .seconds(600)), ("2h", .seconds(7_200)),
        ("28d", .seconds(2_419_200)), ("500us", .microseconds(500)), (" 5S ", .seconds(5)),
    ])
    func durations(text: String, expected: Duration) {
        #expect(DurationText.parse(text) == expected)
        #expect(DurationText.parse(DurationText.format(expected)) == expected)
    }

    @Test("malformed durations are refused", arguments: ["", "s", "30", "1.5s", "-1s", "1h30m", "10 years", "99999999999999999d"])
    func badDurations(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test("account names must be printable and short")
    func accountNames() {
        #expect(Account.isValidName("Acme B.V."))
        #expect(!Account.isValidName("   "))
        #expect(!Account.isValidName(String(repeating: "x", count: 101)))
        #expect(!Account.isValidName("bad\u{7}name"))
    }
}
