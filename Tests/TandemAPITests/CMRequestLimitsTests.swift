import Testing
@testable import TandemAPI
import TandemCore

/// Limits on what one request can make the decoder build: messages per request (both forms) and values per
/// JSON document, each at its boundary, checked before any message is decoded.
@Suite("CM requests: at most 10,000 messages; JSON documents of at most 1,000,000 values")
struct CMRequestLimitsTests {
    private func jsonMessages(_ count: Int) -> String {
        #"{"messages":{"msg":["# + Array(repeating: "{}", count: count).joined(separator: ",") + "]}}"
    }

    private func xmlMessages(_ count: Int) -> String {
        "<MESSAGES>" + String(repeating: "<MSG/>", count: count) + "</MESSAGES>"
    }

    @Test("10,000 messages are decoded (each refused on its own), 10,001 are 203 in JSON and XML")
    func messageBoundary() throws {
        #expect(try decodeJSON(jsonMessages(CMCodec.maximumMessages)).messages.count == 10_000)
        #expect(try decodeXML(xmlMessages(CMCodec.maximumMessages)).messages.count == 10_000)
        let expected = CMRequestError(code: .messageArrayIncorrect,
                                      details: "the request has 10001 messages; at most 10000 are allowed per request")
        #expect(requestError { () throws(CMRequestError) in try decodeJSON(jsonMessages(10_001)) } == expected)
        #expect(requestError { () throws(CMRequestError) in try decodeXML(xmlMessages(10_001)) } == expected)
    }

    @Test("an 8 MiB body of empty messages is refused by the value limit, before any message is read")
    func emptyObjects() {
        let error = requestError { () throws(CMRequestError) in try decodeJSON(jsonMessages(2_796_000)) }
        // Values: the root, "messages", "msg", then the `{}`: the 1,000,001st is the 999,998th `{}`, after
        // 999,997 others of three bytes (`{},`) each.
        #expect(error == CMRequestError(code: .malformedRequest, details:
            "malformed JSON at byte \(#"{"messages":{"msg":["#.utf8.count + 999_997 * 3): the document has more than 1000000 values"))
    }

    @Test("1,000,000 values are read, 1,000,001 are not")
    func valueBoundary() {
        // The root array and its elements.
        func array(_ elements: Int) -> [UInt8] { Array(("[" + Array(repeating: "0", count: elements).joined(separator: ",") + "]").utf8) }
        guard case .success(.array(let elements)) = JSONParser.parse(array(JSONParser.maximumValues - 1)) else {
            Issue.record("1,000,000 values were refused")
            return
        }
        #expect(elements.count == 999_999)
        guard case .failure(let error) = JSONParser.parse(array(JSONParser.maximumValues)) else {
            Issue.record("1,000,001 values were read")
            return
        }
        #expect(error.problem == "the document has more than 1000000 values")
    }
}
