import Testing
import TandemAPI

@Suite("CM JSON requests: refusals")
struct CMJSONErrorTests {
    @Test("whole-request failures: 202 malformed, 203 no usable msg array", arguments: [
        ("", CMErrorCode.malformedRequest, "malformed JSON at byte 0"),
        ("{", .malformedRequest, "malformed JSON"),
        (#"{"messages":{"msg":[]}} x"#, .malformedRequest, "unexpected 'x' after the end of the document"),
        (#"{"messages":{"msg":[{"from":"A",}]}}"#, .malformedRequest, "trailing comma before '}'"),
        (#"{"messages":{"msg":[{"from":'A'}]}}"#, .malformedRequest, "strings take double quotes"),
        (#"{"messages":{"msg":[{"from":"A\u"}]}}"#, .malformedRequest, "four hex digits"),
        (#"{"messages":{"msg":[{"from":"\ud83d"}]}}"#, .malformedRequest, "unpaired UTF-16 surrogate"),
        (#"{"messages":{"msg":[{"dcs":08}]}}"#, .malformedRequest, "numbers do not start with 0"),
        ("{\"messages\":{\"msg\":[{\"from\":\"a\tb\"}]}}", .malformedRequest, "control character"),
        (#"[]"#, .malformedRequest, "must be a JSON object"),
        (#"{"msg":[]}"#, .malformedRequest, "no \"messages\" object"),
        (#"{"messages":[]}"#, .malformedRequest, "no \"messages\" object"),
        (#"{"messages":{},"Messages":{}}"#, .malformedRequest, "\"messages\" appears more than once"),
        (#"{"messages":{"authentication":"T","msg":[]}}"#, .malformedRequest, "authentication must be an object"),
        (#"{"messages":{"authentication":{"producttoken":5},"msg":[]}}"#, .malformedRequest, "producttoken must be a string"),
        (#"{"messages":{}}"#, .messageArrayIncorrect, "no \"msg\" array"),
        (#"{"messages":{"msg":null}}"#, .messageArrayIncorrect, "no \"msg\" array"),
        (#"{"messages":{"msg":[]}}"#, .messageArrayIncorrect, "the msg array is empty"),
        (#"{"messages":{"msg":{}}}"#, .messageArrayIncorrect, "msg must be an array, got an object"),
        (#"{"messages":{"msg":[{}, 1]}}"#, .messageArrayIncorrect, "msg[1] must be an object, got a number"),
    ])
    func requestFailures(request: String, code: CMErrorCode, detail: String) {
        let error = requestError { () throws(CMRequestError) in try decodeJSON(request) }
        #expect(error?.code == code)
        #expect(error?.details.contains(detail) == true, "\(String(describing: error))")
    }

    @Test("bytes that are not UTF-8 inside a string are refused with 202")
    func invalidUTF8() {
        var bytes = Array(jsonMessage().utf8)
        let index = bytes.firstIndex(of: UInt8(ascii: "H"))!
        bytes[index] = 0xC3  // a lead byte followed by "e", not a continuation byte
        let error = requestError { () throws(CMRequestError) in try CMCodec.decodeJSON(bytes) }
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains("not valid UTF-8") == true)
    }

    @Test("nesting deeper than 64 levels is refused with 202, without recursing further")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = requestError { () throws(CMRequestError) in try decodeJSON(jsonMessage(#""richContent":\#(deep)"#)) }
        #expect(error?.code == .malformedRequest)
        #expect(error?.details.contains("nested deeper than 64 levels") == true)
        let fine = String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        #expect(requestError { () throws(CMRequestError) in try decodeJSON(jsonMessage(#""richContent":\#(fine)"#)) } == nil)
    }

    @Test("per-message refusals name the field", arguments: [
        // 301 from
        (#""to":["0031612345678"],"body":"x""#, CMErrorCode.invalidFrom, "from is required"),
        (#""from":"","to":["0031612345678"],"body":"x""#, .invalidFrom, "from is required"),
        (#""from":"ABCDEFGHIJKL","to":["0031612345678"],"body":"x""#, .invalidFrom, "from \"ABCDEFGHIJKL\" must be"),
        (#""from":"cm{com}","to":["0031612345678"],"body":"x""#, .invalidFrom, "from \"cm{com}\""),
        (#""from":"+31612345678901234","to":["0031612345678"],"body":"x""#, .invalidFrom, "at most 16 digits"),
        (#""from":"Zoë","to":["0031612345678"],"body":"x""#, .invalidFrom, "from \"Zoë\""),
        (#""from":"日本","to":["0031612345678"],"body":"x""#, .invalidFrom, "from \"日本\""),
        // 302 to
        (#""from":"A","body":"x""#, .invalidTo, "to is required"),
        (#""from":"A","to":[],"body":"x""#, .invalidTo, "to has no recipients"),
        // 304 body
        (#""from":"A","to":["0031612345678"]"#, .invalidBody, "body is required"),
        (#""from":"A","to":["0031612345678"],"body":{"content":""}"#, .invalidBody, "body.content is empty"),
        (#""from":"A","to":["0031612345678"],"body":{"type":"auto"}"#, .invalidBody, "body.content is required"),
        (#""from":"A","to":["0031612345678"],"body":"""#, .invalidBody, "body is required"),
        // 305 wrong types and values
        (#""from":5,"to":["0031612345678"],"body":"x""#, .invalidField, "from must be a string, got a number"),
        (#""from":"A","to":5,"body":"x""#, .invalidField, "to must be an array of recipients, got a number"),
        (#""from":"A","to":["0031612345678"],"body":5"#, .invalidField, "body must be an object with content, got a number"),
        (#""from":"A","to":["0031612345678"],"body":{"content":5}"#, .invalidField, "body.content must be a string"),
        (#""from":"A","to":["0031612345678"],"body":{"content":"x","type":"binary"}"#, .invalidField, "body.type must be auto or plaintext, got \"binary\""),
        (#""from":"A","to":["0031612345678"],"body":{"content":"x","type":1}"#, .invalidField, "body.type must be a string"),
        (#""from":"A","FROM":"B","to":["0031612345678"],"body":"x""#, .invalidField, "from appears more than once"),
        (#""from":"A","to":["0031612345678"],"body":"x","reference":5"#, .invalidField, "reference must be a string, got a number"),
        (#""from":"A","to":["0031612345678"],"body":"x","reference":"123456789012345678901234567890123""#, .invalidField, "reference is 33 characters long; at most 32"),
        (#""from":"A","to":["0031612345678"],"body":"x","reference":"a\nb""#, .invalidField, "reference must not contain control characters"),
        (#""from":"A","to":["0031612345678"],"body":"x","customGrouping2":true"#, .invalidField, "customGrouping2 must be a string, got a boolean"),
        (#""from":"A","to":["0031612345678"],"body":"x","minimumNumberOfMessageParts":0"#, .invalidField, "minimumNumberOfMessageParts must be between 1 and 8, got 0"),
        (#""from":"A","to":["0031612345678"],"body":"x","maximumNumberOfMessageParts":9"#, .invalidField, "maximumNumberOfMessageParts must be between 1 and 8, got 9"),
        (#""from":"A","to":["0031612345678"],"body":"x","maximumNumberOfMessageParts":2.5"#, .invalidField, "must be a whole number, got 2.5"),
        (#""from":"A","to":["0031612345678"],"body":"x","maximumNumberOfMessageParts":"two""#, .invalidField, "must be a whole number, got two"),
        (#""from":"A","to":["0031612345678"],"body":"x","maximumNumberOfMessageParts":[2]"#, .invalidField, "maximumNumberOfMessageParts must be a number, got an array"),
        (#""from":"A","to":["0031612345678"],"body":"x","minimumNumberOfMessageParts":3,"maximumNumberOfMessageParts":2"#, .invalidField, "minimumNumberOfMessageParts (3) exceeds maximumNumberOfMessageParts (2)"),
        (#""from":"A","to":["0031612345678"],"body":"x","validity":"tomorrow""#, .invalidField, "validity \"tomorrow\" must be"),
        (#""from":"A","to":["0031612345678"],"body":"x","validity":"2025-03-01T12:00:00""#, .invalidField, "validity \"2025-03-01T12:00:00\""),
        (#""from":"A","to":["0031612345678"],"body":"x","validity":120"#, .invalidField, "validity must be a string, got a number"),
        (#""from":"A","to":["0031612345678"],"body":"x","dcs":3"#, .invalidField, "dcs must be 0 or 8, got 3"),
        (#""from":"A","to":["0031612345678"],"body":"x","dcs":8.0"#, .invalidField, "dcs must be a whole number, got 8.0"),
        (#""from":"A","to":["0031612345678"],"body":"x","appKey":"not-a-guid""#, .invalidField, "appKey must be a GUID"),
        (#""from":"A","to":["0031612345678"],"body":"x","appKey":{}"#, .invalidField, "appKey must be a string, got an object"),
        (#""from":"A","to":["0031612345678"],"body":"x","appMessageType":"urgent""#, .invalidField, "appMessageType must be one of Default, OTP, Critical, got \"urgent\""),
        (#""from":"A","to":["0031612345678"],"body":"x","allowedChannels":["Pigeon"]"#, .invalidField, "allowedChannels: \"Pigeon\" is not a channel name"),
        (#""from":"A","to":["0031612345678"],"body":"x","allowedChannels":[1]"#, .invalidField, "allowedChannels must hold channel names, got a number"),
        (#""from":"A","to":["0031612345678"],"body":"x","allowedChannels":{"SMS":true}"#, .invalidField, "allowedChannels must be an array of channel names, got an object"),
        (#""from":"A","to":["0031612345678"],"body":"x","fallbackFor":"\#(String(repeating: "f", count: 65))""#, .invalidField, "fallbackFor is 65 characters long; at most 64"),
        (#""from":"A","to":["0031612345678"],"body":"x","customGrouping3":"\#(String(repeating: "g", count: 101))""#, .invalidField, "customGrouping3 is 101 characters long; at most 100"),
        // 402 only channels Tandem does not carry
        (#""from":"A","to":["0031612345678"],"body":"x","allowedChannels":["WhatsApp"]"#, .channelNotSupported, "(WhatsApp); supported: SMS, Push"),
        (#""from":"A","to":["0031612345678"],"body":"x","allowedChannels":["Viber","rcs","Apple Messages for Business","AppleBusinessChat"]"#, .channelNotSupported, "(Viber, RCS, Apple Messages for Business)"),
        (#""from":"A","to":["0031612345678"],"body":"x","allowedChannels":["MobilePush","iMessage","Telegram","Instagram","Facebook Messenger","Google Business Messages","Line","KakaoTalk","Twitter","Voice","Email"]"#, .channelNotSupported, "MobilePush, Apple Messages for Business, Telegram, Instagram, Facebook Messenger, Google Business Messages, Line, KakaoTalk, Twitter, Voice, Email"),
    ])
    func messageFailures(members: String, code: CMErrorCode, detail: String) throws {
        let submission = try decodeJSON(jsonRequest(members))
        let error = try #require(submission.onlyError)
        #expect(error.code == code)
        #expect(error.details.contains(detail), "\(error.details)")
    }

    @Test("more than 1,000 recipients refuse the message with 302 but keep them for the response")
    func tooManyRecipients() throws {
        let list = (0..<1_001).map { #""00316\#(10_000_000 + $0)""# }.joined(separator: ",")
        let submission = try decodeJSON(jsonMessage(to: #""to":[\#(list)]"#))
        #expect(submission.onlyError == CMMessageError(code: .invalidTo, details: "to has 1001 recipients; at most 1000 are allowed"))
        #expect(submission.messages[0].recipients.count == 1_001)
    }

    @Test("a refused message still reports its recipients and reference")
    func refusedEntryKeepsLineData() throws {
        let submission = try decodeJSON(jsonRequest(#""from":"A","to":[{"number":"0031612345678"},"x"],"reference":"r","dcs":1,"body":"b""#))
        #expect(submission.messages[0].recipients == ["0031612345678", "x"])
        #expect(submission.messages[0].reference == "r")
        #expect(submission.onlyError?.code == .invalidField)
    }

    @Test("an unsupported-only channel list is reported before other problems (402 over an empty body)")
    func channelCheckFirst() throws {
        let submission = try decodeJSON(jsonRequest(#""from":"","to":[],"body":{"content":""},"allowedChannels":["Whatsapp"]"#))
        #expect(submission.onlyError?.code == .channelNotSupported)
    }
}
