import Testing
import TandemCore

@Suite("JSON string literals written by hand")
struct JSONTextTests {
    static let samples = ["", "plain", "quote \" and backslash \\", "new\nline\r\ttab", "\u{0}\u{1}\u{1F}\u{7F}", "héllo wörld",
                          "emoji 👋🏽 and 中文", "mixed \u{8} \"ü\" \\n"]

    @Test("the byte writer writes exactly the String writer's literal, which parses back to the text", arguments: samples)
    func bytesMatchText(text: String) {
        var asText = ""
        JSONText.appendString(text, to: &asText)
        var asBytes: [UInt8] = [0x5B]  // appended after what is there
        JSONText.appendString(text, to: &asBytes)
        #expect(asBytes == [0x5B] + Array(asText.utf8))
        #expect(JSONParser.parse(Array(asText.utf8)) == .success(.string(text)))
    }
}
