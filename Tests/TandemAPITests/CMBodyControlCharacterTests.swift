import Testing
import TandemAPI

/// One rule for bodies in every form: a C0 control character other than tab, LF and CR refuses the message
/// with 304, naming the character.
@Suite("CM bodies: control characters are 304 in JSON, XML and GET alike")
struct CMBodyControlCharacterTests {
    static let refused: [(escaped: String, raw: String, name: String)] = [
        (#"\u0000"#, "\u{00}", "U+0000"), (#"\u0007"#, "\u{07}", "U+0007"), (#"\u000B"#, "\u{0B}", "U+000B"),
        (#"\u001B"#, "\u{1B}", "U+001B"), (#"\u001F"#, "\u{1F}", "U+001F"),
    ]

    private func expectRefused(_ submission: CMSubmission?, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = submission?.onlyError
        #expect(error?.code == .invalidBody, sourceLocation: sourceLocation)
        #expect(error?.details == "body contains the control character \(name); only tab, line feed and carriage return are allowed",
                sourceLocation: sourceLocation)
    }

    private func xml(_ body: String) -> String {
        "<MESSAGES><MSG><FROM>Shop</FROM><TO>0031612345678</TO><BODY>\(body)</BODY></MSG></MESSAGES>"
    }

    private func query(_ body: String) -> [(name: String, value: String)] {
        [("producttoken", productToken), ("from", "Shop"), ("to", "0031612345678"), ("body", body)]
    }

    @Test("JSON: an escaped control character in body.content or a plain body string", arguments: refused)
    func json(control: (escaped: String, raw: String, name: String)) {
        expectRefused(try? decodeJSON(jsonMessage(body: #""body":{"content":"a\#(control.escaped)b"}"#)), control.name)
        expectRefused(try? decodeJSON(jsonMessage(body: #""body":"\#(control.escaped)""#)), control.name)
    }

    @Test("XML: a control character in BODY text or CDATA", arguments: refused)
    func xml(control: (escaped: String, raw: String, name: String)) {
        expectRefused(try? decodeXML(xml("a\(control.raw)b")), control.name)
        expectRefused(try? decodeXML(xml("<![CDATA[a\(control.raw)b]]>")), control.name)
        expectRefused(try? decodeXML(xml("<CONTENT>a\(control.raw)b</CONTENT><TYPE>auto</TYPE>")), control.name)
    }

    @Test("GET: a control character in the body parameter", arguments: refused)
    func get(control: (escaped: String, raw: String, name: String)) {
        expectRefused(try? CMCodec.decodeQuery(query("a\(control.raw)b")), control.name)
    }

    @Test("tab, line feed and carriage return are kept in every form")
    func allowed() throws {
        #expect(try decodeJSON(jsonMessage(body: #""body":{"content":"a\tb\nc\rd"}"#)).onlyMessage?.body == "a\tb\nc\rd")
        #expect(try decodeXML(xml("a\tb\nc\r\nd")).onlyMessage?.body == "a\tb\nc\nd")  // XML reads CR LF as LF
        #expect(try CMCodec.decodeQuery(query("a\tb\nc\rd")).onlyMessage?.body == "a\tb\nc\rd")
        #expect(try decodeJSON(jsonMessage(body: #""body":"DEL \u007F and C1 \u0085 are not C0""#)).onlyMessage != nil)
    }

    @Test("XML: a control character outside BODY is still a malformed request (202)", arguments: [
        ("<MESSAGES><MSG><FROM>Sh\u{01}op</FROM><TO>0031612345678</TO><BODY>x</BODY></MSG></MESSAGES>", "U+0001 in the text of <FROM>"),
        ("<MESSAGES><MSG><FROM>Shop</FROM><TO>0031612345678</TO><BODY>x</BODY><REFERENCE><![CDATA[\u{02}]]></REFERENCE></MSG></MESSAGES>",
         "U+0002 in the text of <REFERENCE>"),
        ("<MESSAGES>\u{1F}<MSG/></MESSAGES>", "U+001F in the text of <MESSAGES>"),
    ])
    func outsideBody(request: String, detail: String) {
        let error = requestError { () throws(CMRequestError) in try decodeXML(request) }
        #expect(error?.code == .malformedRequest)
        #expect(error?.details == "malformed XML: control character \(detail)")
    }
}
