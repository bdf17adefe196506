import Testing
import TandemAPI

/// One request per error code the codec can produce, in each form where it applies.
@Suite("every codec error code")
struct CMErrorCoverageTests {
    enum Outcome: Sendable { case request(CMErrorCode), message(CMErrorCode), recipient(CMErrorCode) }

    private static let base = #""from":"A","to":["0031612345678"],"body":"x""#

    @Test("JSON", arguments: [
        ("{", Outcome.request(.malformedRequest)),
        (#"{"messages":{"msg":[]}}"#, .request(.messageArrayIncorrect)),
        (jsonRequest(#""from":"a[b]","to":["0031612345678"],"body":"x""#), .message(.invalidFrom)),
        (jsonRequest(#""from":"A","to":[],"body":"x""#), .message(.invalidTo)),
        (jsonRequest(#""from":"A","to":["12345"],"body":"x""#), .recipient(.invalidMSISDN)),
        (jsonRequest(#""from":"A","to":["0031612345678"],"body":{"content":""}"#), .message(.invalidBody)),
        (jsonRequest(base + #","dcs":"x""#), .message(.invalidField)),
        (jsonRequest(base + #","allowedChannels":["RCS"]"#), .message(.channelNotSupported)),
    ])
    func json(request: String, outcome: Outcome) throws {
        try check(outcome) { () throws(CMRequestError) in try decodeJSON(request) }
    }

    @Test("XML", arguments: [
        ("<MESSAGES>", Outcome.request(.malformedRequest)),
        ("<MESSAGES/>", .request(.messageArrayIncorrect)),
        ("<MESSAGES><MSG><FROM>a[b]</FROM><TO>0031612345678</TO><BODY>x</BODY></MSG></MESSAGES>", .message(.invalidFrom)),
        ("<MESSAGES><MSG><FROM>A</FROM><BODY>x</BODY></MSG></MESSAGES>", .message(.invalidTo)),
        ("<MESSAGES><MSG><FROM>A</FROM><TO>12345</TO><BODY>x</BODY></MSG></MESSAGES>", .recipient(.invalidMSISDN)),
        ("<MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO><BODY/></MSG></MESSAGES>", .message(.invalidBody)),
        ("<MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO><BODY>x</BODY><APPKEY>k</APPKEY></MSG></MESSAGES>", .message(.invalidField)),
        ("<MESSAGES><MSG><FROM>A</FROM><TO>0031612345678</TO><BODY>x</BODY><ALLOWEDCHANNELS>Email</ALLOWEDCHANNELS></MSG></MESSAGES>",
         .message(.channelNotSupported)),
    ])
    func xml(request: String, outcome: Outcome) throws {
        try check(outcome) { () throws(CMRequestError) in try decodeXML(request) }
    }

    @Test("GET", arguments: [
        ([("producttoken", "a"), ("PRODUCTTOKEN", "b"), ("body", "x")], Outcome.request(.malformedRequest)),
        ([("producttoken", "a")], .request(.messageArrayIncorrect)),
        ([("from", "a[b]"), ("to", "0031612345678"), ("body", "x")], .message(.invalidFrom)),
        ([("from", "A"), ("body", "x")], .message(.invalidTo)),
        ([("from", "A"), ("to", "12345"), ("body", "x")], .recipient(.invalidMSISDN)),
        ([("from", "A"), ("to", "0031612345678")], .message(.invalidBody)),
        ([("from", "A"), ("to", "0031612345678"), ("body", "x"), ("appmessagetype", "loud")], .message(.invalidField)),
        ([("from", "A"), ("to", "0031612345678"), ("body", "x"), ("allowedchannels", "Line")], .message(.channelNotSupported)),
    ] as [([(name: String, value: String)], Outcome)])
    func get(pairs: [(name: String, value: String)], outcome: Outcome) throws {
        try check(outcome) { () throws(CMRequestError) in try CMCodec.decodeQuery(pairs) }
    }

    private func check(_ outcome: Outcome, _ decode: () throws(CMRequestError) -> CMSubmission) throws {
        switch outcome {
        case .request(let code):
            #expect(requestError(decode)?.code == code)
        case .message(let code):
            #expect(try decode().onlyError?.code == code)
        case .recipient(let code):
            let message = try #require(try decode().onlyMessage)
            #expect(message.recipients.map { $0.result.failure?.code } == [code])
        }
    }
}
