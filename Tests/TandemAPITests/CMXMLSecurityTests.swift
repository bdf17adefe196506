import Testing
import TandemAPI

@Suite("CM XML requests: refusals, DTDs and entities")
struct CMXMLSecurityTests {
    private func refusal(_ request: String) -> CMRequestError? {
        requestError { () throws(CMRequestError) in try decodeXML(request) }
    }

    @Test("XXE: an external entity in a DOCTYPE is refused before anything is read")
    func externalEntity() {
        let error = refusal("""
        <?xml version="1.0"?>
        <!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>
        <MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO><BODY>&e;</BODY></MSG></MESSAGES>
        """)
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains("DOCTYPE declarations are not accepted") == true)
    }

    @Test("billion laughs is refused at the DOCTYPE")
    func billionLaughs() {
        var entities = #"<!ENTITY lol "lol">"#
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
        }
        let error = refusal("<?xml version=\"1.0\"?><!DOCTYPE lolz [\(entities)]><MESSAGES><MSG><BODY>&lol9;</BODY></MSG></MESSAGES>")
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains("DOCTYPE") == true)
    }

    @Test("an external parameter entity is refused")
    func parameterEntity() {
        let error = refusal("""
        <?xml version="1.0"?><!DOCTYPE x [<!ENTITY % p SYSTEM "http://127.0.0.1:9/evil.dtd"> %p;]><MESSAGES/>
        """)
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains("DOCTYPE") == true)
    }

    @Test("declarations are refused wherever they appear", arguments: [
        ("<MESSAGES><!DOCTYPE x><MSG/></MESSAGES>", "DOCTYPE declarations are not accepted"),
        ("<!ENTITY e \"x\"><MESSAGES/>", "ENTITY declarations are not accepted"),
        ("<MESSAGES><MSG><!ENTITY e \"x\"></MSG></MESSAGES>", "ENTITY declarations are not accepted"),
        ("<MESSAGES><!ELEMENT MSG ANY></MESSAGES>", "markup declarations (<!…>) are not accepted"),
        ("<MESSAGES/><!DOCTYPE x>", "DOCTYPE declarations are not accepted"),
        ("<![CDATA[x]]><MESSAGES/>", "markup declarations"),
    ])
    func declarations(request: String, detail: String) {
        let error = refusal(request)
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains(detail) == true, "\(String(describing: error))")
    }

    @Test("only the five predefined entities and character references exist", arguments: [
        ("&foo;", "undefined entity &foo;"), ("&e;", "undefined entity &e;"), ("&AMP;", "undefined entity &AMP;"),
        ("a & b", "'&' must start an entity reference"), ("&#0;", "invalid character reference &#0;"),
        ("&#xD800;", "invalid character reference"), ("&#x110000;", "invalid character reference"), ("&#;", "invalid character reference"),
        ("&#12a;", "invalid character reference"),
    ])
    func entities(text: String, detail: String) {
        let error = refusal("<MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO><BODY>\(text)</BODY></MSG></MESSAGES>")
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains(detail) == true, "\(String(describing: error))")
    }

    @Test("nesting is limited to 16 levels")
    func deepNesting() {
        func nested(_ levels: Int) -> String {
            // MESSAGES and MSG are two levels; the rest is an unknown element nested inside MSG.
            let inner = levels - 2
            return "<MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO><BODY>x</BODY>"
                + String(repeating: "<X>", count: inner) + String(repeating: "</X>", count: inner) + "</MSG></MESSAGES>"
        }
        #expect(refusal(nested(16)) == nil)
        let error = refusal(nested(17))
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains("nested deeper than 16 levels") == true)
        let huge = refusal(String(repeating: "<a>", count: 100_000))
        #expect(huge?.details.contains("nested deeper than 16 levels") == true)
    }

    @Test("malformed documents are refused with 202", arguments: [
        ("", "the document has no root element"),
        ("   ", "the document has no root element"),
        ("hello", "text before the root element"),
        ("<MESSAGES><MSG></MESSAGES>", "end tag </MESSAGES> does not match <MSG>"),
        ("<MESSAGES><MSG>", "element <MSG> is not closed"),
        ("<MESSAGES><MSG></msg></MESSAGES>", "end tag </msg> does not match <MSG>"),
        ("<MESSAGES/>trailing", "content after the root element"),
        ("<MESSAGES/><MESSAGES/>", "content after the root element"),
        ("<MESSAGES><MSG a=\"1\" a=\"2\"/></MESSAGES>", "attribute a appears twice"),
        ("<MESSAGES><MSG a=1/></MESSAGES>", "expected a quoted value"),
        ("<MESSAGES><MSG a=\"<\"/></MESSAGES>", "'<' in the value of attribute a"),
        ("<MESSAGES><!-- never closed </MESSAGES>", "unterminated comment"),
        ("<MESSAGES><![CDATA[never closed</MESSAGES>", "unterminated CDATA section"),
        ("<MESSAGES><?xml version=\"1.0\"?></MESSAGES>", "an XML declaration is only allowed at the start"),
        ("<MESSAGES>\u{01}</MESSAGES>", "control character"),
        ("<ROOT><MSG/></ROOT>", "the root element must be MESSAGES, got ROOT"),
        ("<MESSAGES>stray<MSG/></MESSAGES>", "unexpected text inside MESSAGES"),
        ("<MESSAGES><MSG>stray<FROM>A</FROM></MSG></MESSAGES>", "unexpected text inside MSG"),
        ("<MESSAGES><AUTHENTICATION/><AUTHENTICATION/><MSG/></MESSAGES>", "AUTHENTICATION appears more than once"),
        ("<MESSAGES><AUTHENTICATION><PRODUCTTOKEN>a</PRODUCTTOKEN><PRODUCTTOKEN>b</PRODUCTTOKEN></AUTHENTICATION><MSG/></MESSAGES>",
         "PRODUCTTOKEN appears more than once"),
    ])
    func malformed(request: String, detail: String) {
        let error = refusal(request)
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains(detail) == true, "\(String(describing: error))")
    }

    @Test("bytes that are not UTF-8 are refused with 202")
    func notUTF8() {
        var bytes = Array("<MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO><BODY>caf?</BODY></MSG></MESSAGES>".utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "?"))!] = 0xE9  // Latin-1 é
        let error = requestError { () throws(CMRequestError) in try CMCodec.decodeXML(bytes) }
        #expect(error == CMRequestError(code: .malformedRequest, details: "malformed XML at byte 0: the document is not valid UTF-8"))
    }

    @Test("no MSG element is 203")
    func noMessages() {
        #expect(refusal("<MESSAGES><AUTHENTICATION><PRODUCTTOKEN>T</PRODUCTTOKEN></AUTHENTICATION></MESSAGES>")
                == CMRequestError(code: .messageArrayIncorrect, details: "the request has no MSG element"))
        #expect(refusal("<MESSAGES/>")?.code == .messageArrayIncorrect)
    }

    @Test("error details carry the byte offset")
    func offsets() {
        #expect(refusal("<MESSAGES><MSG>&foo;</MSG></MESSAGES>")?.details
                == "malformed XML at byte 15: undefined entity &foo; (only &lt; &gt; &amp; &quot; &apos; and &#…; are accepted)")
    }
}
