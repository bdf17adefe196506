import Testing
import TandemAPI
import TandemCore

@Suite("CM GET requests")
struct CMQueryDecodingTests {
    private func decode(_ pairs: [(name: String, value: String)]) throws(CMRequestError) -> CMSubmission {
        try CMCodec.decodeQuery(pairs)
    }

    @Test("the documented form: producttoken, body, to, from, reference, appkey")
    func basicForm() throws {
        let submission = try decode([("producttoken", productToken), ("body", "Hello there"),
                                     ("to", "0031612345678"), ("from", "Shop"), ("reference", "r1"), ("appkey", appKeyText)])
        #expect(submission.format == .get)
        #expect(submission.productToken == productToken)
        #expect(submission.messages.count == 1)
        let message = try #require(submission.onlyMessage)
        #expect(message.body == "Hello there")
        #expect(message.from.text == "Shop")
        #expect(message.reference == "r1")
        #expect(message.appKey?.text == appKeyText)
        #expect(message.recipients.map(\.msisdn) == [MSISDN("+31612345678")])
        #expect(submission.messages[0].reference == "r1")
    }

    @Test("names match in any casing; to holds several numbers, and may repeat")
    func casingAndRecipients() throws {
        let submission = try decode([("ProductToken", "T"), ("BODY", "x"), ("To", "0031612345678, 00447911123456,,bad"),
                                     ("TO", "+31612345679"), ("From", "A")])
        #expect(submission.productToken == "T")
        let message = try #require(submission.onlyMessage)
        #expect(message.recipients.map(\.raw) == ["0031612345678", "00447911123456", "bad", "+31612345679"])
        #expect(message.recipients.map { $0.result.failure?.code } == [nil, nil, .invalidMSISDN, nil])
        #expect(submission.messages[0].recipients.count == 4)
    }

    @Test("every field under its lower-cased name")
    func everyField() throws {
        let message = try #require(try decode([
            ("from", "+31612345678"), ("to", "0031612345678"), ("body", "Code 1"), ("type", "PLAINTEXT"),
            ("reference", "r"), ("customgrouping", "a"), ("customgrouping2", "b"), ("customgrouping3", "c"),
            ("minimumnumberofmessageparts", "2"), ("maximumnumberofmessageparts", "3"), ("validity", "1h30m"),
            ("dcs", "8"), ("allowedchannels", "SMS,Push"), ("appkey", appKeyText), ("appmessagetype", "critical"),
            ("richcontent", "{}"), ("fallbackfor", "r0"), ("unknown", "ignored"),
        ]).onlyMessage)
        #expect(message.from.kind == .numeric)
        #expect(message.bodyType == .plaintext)
        #expect([message.customGrouping, message.customGrouping2, message.customGrouping3] == ["a", "b", "c"])
        #expect(message.minimumParts == 2 && message.maximumParts == 3)
        #expect(message.validity == .relative(.seconds(5_400)))
        #expect(message.dcs == 8 && message.segmentation.alphabet == .ucs2)
        #expect(message.allowedChannels == .only([.sms, .push]))
        #expect(message.appMessageType == .critical)
        #expect(message.richContent == nil)
        #expect(message.fallbackFor == "r0")
        #expect(try decode([("from", "A"), ("to", "0031612345678"), ("body", "x"), ("bodytype", "auto")]).onlyMessage?.bodyType == .auto)
    }

    @Test("empty parameters count as absent")
    func emptyParameters() throws {
        let message = try #require(try decode([("from", "A"), ("to", "0031612345678"), ("body", "x"), ("reference", ""),
                                               ("dcs", ""), ("appkey", ""), ("allowedchannels", "")]).onlyMessage)
        #expect(message.reference == nil && message.dcs == nil && message.appKey == nil && message.allowedChannels == .all)
    }

    @Test("GET refusals", arguments: [
        ([("producttoken", "T")], CMErrorCode.messageArrayIncorrect, "the query names no message"),
        ([("producttoken", "T"), ("producttoken", "U"), ("body", "x")], .malformedRequest, "producttoken appears more than once"),
    ] as [([(name: String, value: String)], CMErrorCode, String)])
    func requestFailures(pairs: [(name: String, value: String)], code: CMErrorCode, detail: String) {
        let error = requestError { () throws(CMRequestError) in try decode(pairs) }
        #expect(error?.code == code)
        #expect(error?.details.contains(detail) == true)
    }

    @Test("per-message errors in the GET form", arguments: [
        ([("to", "0031612345678"), ("body", "x")], CMErrorCode.invalidFrom, "from is required"),
        ([("from", "A"), ("body", "x")], .invalidTo, "to is required"),
        ([("from", "A"), ("to", "0031612345678")], .invalidBody, "body is required"),
        ([("from", "A"), ("to", "0031612345678"), ("body", "")], .invalidBody, "body.content is empty"),
        ([("from", "A"), ("from", "B"), ("to", "0031612345678"), ("body", "x")], .invalidField, "from appears more than once"),
        ([("from", "A"), ("to", "0031612345678"), ("body", "x"), ("body", "y")], .invalidField, "body has a repeated content or type"),
        ([("from", "A"), ("to", "0031612345678"), ("body", "x"), ("validity", "soon")], .invalidField, "validity \"soon\""),
        ([("from", "A"), ("to", "0031612345678"), ("body", "x"), ("allowedchannels", "Voice")], .channelNotSupported, "(Voice)"),
    ] as [([(name: String, value: String)], CMErrorCode, String)])
    func messageFailures(pairs: [(name: String, value: String)], code: CMErrorCode, detail: String) throws {
        let error = try #require(try decode(pairs).onlyError)
        #expect(error.code == code)
        #expect(error.details.contains(detail), "\(error.details)")
    }
}
