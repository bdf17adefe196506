import Testing
@testable import TandemAPI

/// The parser's limits on what one request can make it do. Each limit is tested at its boundary, and the
/// shapes that used to take seconds (tens of thousands of attributes on one element) end at the limit.
@Suite("CM XML requests: limits on attributes, nodes and names")
struct CMXMLLimitsTests {
    private func refusal(_ request: String) -> CMRequestError? {
        requestError { () throws(CMRequestError) in try decodeXML(request) }
    }

    private func attributes(_ count: Int, duplicateLast: Bool = false) -> String {
        (0..<count).map { index in
            " a\(duplicateLast && index == count - 1 ? 0 : index)=\"v\""
        }.joined()
    }

    @Test("40,000 attributes on one element are refused with 202 at the 33rd")
    func manyAttributes() throws {
        let request = "<MESSAGES" + attributes(40_000) + "><MSG/></MESSAGES>"
        let error = try #require(refusal(request))
        #expect(error.code == .malformedRequest)
        // The offset is the 33rd attribute's name (after its leading space): the scan stopped there.
        let offset = "<MESSAGES".utf8.count + attributes(32).utf8.count + 1
        #expect(error.details == "malformed XML at byte \(offset): <MESSAGES> has more than 32 attributes")
    }

    @Test("32 attributes are accepted, 33 are not")
    func attributeBoundary() throws {
        let accepted = try MiniXML.parse(Array(("<MESSAGES" + attributes(MiniXML.maximumAttributes) + "/>").utf8))
        #expect(accepted.attributes.count == 32)
        #expect(accepted.attribute("a31") == "v")
        #expect(throws: MiniXML.SyntaxError.self) {
            try MiniXML.parse(Array(("<MESSAGES" + attributes(MiniXML.maximumAttributes + 1) + "/>").utf8))
        }
    }

    @Test("a repeated attribute is found wherever it is among the others")
    func repeatedAttribute() {
        let error = refusal("<MESSAGES" + attributes(32, duplicateLast: true) + "><MSG/></MESSAGES>")
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains("attribute a0 appears twice in <MESSAGES>") == true, "\(String(describing: error))")
    }

    @Test("a document of 50,000 elements and attributes is read; one more is refused with 202")
    func nodeBoundary() throws {
        // The root, 31 attributes on it, and 49,968 empty children: 50,000 nodes.
        func document(children: Int) -> [UInt8] {
            Array(("<MESSAGES" + attributes(31) + ">" + String(repeating: "<MSG/>", count: children) + "</MESSAGES>").utf8)
        }
        let root = try MiniXML.parse(document(children: MiniXML.maximumNodes - 32))
        #expect(root.elements.count == 49_968)
        let error = refusal(String(decoding: document(children: MiniXML.maximumNodes - 31), as: UTF8.self))
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains("the document has more than 50000 elements and attributes") == true,
                "\(String(describing: error))")
    }

    @Test("the node limit holds for an 8 MiB body of empty elements")
    func maximumBody() {
        let body = "<MESSAGES>" + String(repeating: "<a/>", count: 2_097_000) + "</MESSAGES>"
        let error = refusal(body)
        #expect(error?.code == .malformedRequest)
        // The 50,001st node is the 50,000th <a/>; it starts after the root tag and 49,999 others.
        #expect(error?.details == "malformed XML at byte \(10 + 49_999 * 4): the document has more than 50000 elements and attributes")
    }

    @Test("names of 128 bytes are read, longer ones refused with 202", arguments: [
        ("<MESSAGES><\(String(repeating: "N", count: 128))/><MSG/></MESSAGES>", nil),
        ("<MESSAGES><\(String(repeating: "N", count: 129))/><MSG/></MESSAGES>", "a name is longer than 128 bytes"),
        ("<MESSAGES \(String(repeating: "n", count: 129))=\"v\"><MSG/></MESSAGES>", "a name is longer than 128 bytes"),
        ("<MESSAGES><?\(String(repeating: "p", count: 129)) x?><MSG/></MESSAGES>", "a name is longer than 128 bytes"),
    ] as [(String, String?)])
    func nameLength(request: String, detail: String?) {
        let error = refusal(request)
        if let detail {
            #expect(error?.code == .malformedRequest)
            #expect(error?.details.contains(detail) == true, "\(String(describing: error))")
        } else {
            #expect(error?.details.contains("longer than") != true, "\(String(describing: error))")
        }
    }

    @Test("references decode without a lookup table: predefined, decimal, hexadecimal, leading zeros", arguments: [
        ("&lt;&gt;&amp;&quot;&apos;", "<>&\"'"), ("&#65;&#x4a;&#x4A;", "AJJ"), ("&#x0000041;", "A"), ("&#x1F600;", "😀"),
    ])
    func references(text: String, decoded: String) throws {
        let root = try MiniXML.parse(Array("<BODY>\(text)</BODY>".utf8))
        #expect(root.text == decoded)
    }

    @Test("malformed references are refused", arguments: [
        "&#X41;", "&#x;", "&#99999999999;", "&#x110000;", "&lt", "&LT;", "&ampx;", "&#-1;",
    ])
    func badReferences(text: String) {
        #expect(throws: MiniXML.SyntaxError.self) { try MiniXML.parse(Array("<BODY>\(text)</BODY>".utf8)) }
    }

    @Test("text with runs, line ends and tabs is kept byte for byte")
    func textRuns() throws {
        let root = try MiniXML.parse(Array("<BODY>ab\tc\r\nd\re\nf<!-- x -->g<![CDATA[<h>]]>i</BODY>".utf8))
        #expect(root.text == "ab\tc\nd\ne\nfg<h>i")
    }
}
