import Testing
import TandemAPI
import TandemCore

@Suite("CM JSON requests: fields and casing")
struct CMJSONDecodingTests {
    @Test("the spec's hybrid JSON example decodes (allowedChannels Push, appKey)")
    func specAllowedChannelsExample() throws {
        let submission = try decodeJSON("""
        {
            "messages": {
                "authentication": {
                    "producttoken": "00000000-0000-0000-0000-000000000000"
                },
                "msg": [ {
                        "from": "SenderName",
                        "to": [{
                            "number": "00447911123456"
                        }],
                        "body": {
                            "content": "This message will be delivered as a push message"
                        },
                        "allowedChannels": ["Push"],
                        "appKey": "00000000-0000-0000-0000-000000000000"
                    }
                ]
            }
        }
        """)
        #expect(submission.format == .json)
        #expect(submission.productToken == productToken)
        let message = try #require(submission.onlyMessage)
        #expect(message.from == CMSender("SenderName"))
        #expect(message.from.kind == .alphanumeric)
        #expect(message.recipients.map(\.raw) == ["00447911123456"])
        #expect(message.recipients.map(\.msisdn) == [MSISDN("+447911123456")])
        #expect(message.body == "This message will be delivered as a push message")
        #expect(message.allowedChannels == .only([.push]))
        #expect(message.appKey == AppKey("00000000-0000-0000-0000-000000000000"))
        #expect(message.appMessageType == nil)
    }

    @Test("the spec's appmessagetype example decodes (lower-case key and value)")
    func specMessageTypeExample() throws {
        let submission = try decodeJSON("""
        {"messages": {"authentication": {"producttoken": "00000000-0000-0000-0000-000000000000"},
         "msg": [ {"from": "Hybrid Test", "to": [{"number": "00447911123456"}],
                   "body": {"content": "This is a critical message"},
                   "appmessagetype": "critical" , "appKey": "00000000-0000-0000-0000-000000000000"}]}}
        """)
        let message = try #require(submission.onlyMessage)
        #expect(message.appMessageType == .critical)
        #expect(message.from.text == "Hybrid Test")
        #expect(message.allowedChannels == .all)
    }

    @Test("every field is read")
    func everyField() throws {
        let submission = try decodeJSON(jsonRequest("""
        "from":"+31612345678","to":[{"number":"0031612345678"},"+447911123456"],
        "body":{"type":"plaintext","content":"Your code is 1234"},"reference":"order-17",
        "customGrouping":"g1","customGrouping2":"g2","customGrouping3":"g3",
        "minimumNumberOfMessageParts":1,"maximumNumberOfMessageParts":"3","validity":"2025-03-01T12:00:00Z",
        "dcs":8,"allowedChannels":["SMS","Push"],"appKey":"\(appKeyText.uppercased())","appMessageType":"OTP",
        "richContent":{"conversation":[{"text":"Hi"}]},"fallbackFor":"order-16"
        """))
        let message = try #require(submission.onlyMessage)
        #expect(message.from == CMSender("+31612345678"))
        #expect(message.from.kind == .numeric)
        #expect(message.recipients.map(\.raw) == ["0031612345678", "+447911123456"])
        #expect(message.recipients.compactMap(\.msisdn).map(\.e164) == ["+31612345678", "+447911123456"])
        #expect(message.body == "Your code is 1234")
        #expect(message.bodyType == .plaintext)
        #expect(message.reference == "order-17")
        #expect(message.customGrouping == "g1")
        #expect(message.customGrouping2 == "g2")
        #expect(message.customGrouping3 == "g3")
        #expect(message.minimumParts == 1)
        #expect(message.maximumParts == 3)
        #expect(message.validity == .absolute(Timestamp(milliseconds: 1_740_830_400_000)))
        #expect(message.dcs == 8)
        #expect(message.allowedChannels == .only([.sms, .push]))
        #expect(message.appKey?.text == appKeyText)
        #expect(message.appMessageType == .otp)
        #expect(message.richContent == #"{"conversation":[{"text":"Hi"}]}"#)
        #expect(message.fallbackFor == "order-16")
        #expect(message.segmentation == SMSSegmentation(alphabet: .ucs2, units: 17, parts: 1))
        #expect(submission.messages[0].reference == "order-17")
        #expect(submission.messages[0].index == 0)
    }

    @Test("defaults when optional fields are absent")
    func defaults() throws {
        let message = try #require(try decodeJSON(jsonMessage()).onlyMessage)
        #expect(message.bodyType == .auto)
        #expect(message.reference == nil)
        #expect(message.customGrouping == nil && message.customGrouping2 == nil && message.customGrouping3 == nil)
        #expect(message.minimumParts == 1)
        #expect(message.maximumParts == 8)
        #expect(message.validity == nil)
        #expect(message.dcs == nil)
        #expect(message.allowedChannels == .all)
        #expect(message.appKey == nil)
        #expect(message.appMessageType == nil)
        #expect(message.richContent == nil)
        #expect(message.fallbackFor == nil)
        #expect(message.segmentation == SMSSegmentation(alphabet: .gsm7, units: 5, parts: 1))
    }

    @Test("keys match in any casing", arguments: [
        #"{"MESSAGES":{"AUTHENTICATION":{"PRODUCTTOKEN":"T"},"MSG":[{"FROM":"A","TO":[{"NUMBER":"0031612345678"}],"BODY":{"CONTENT":"x","TYPE":"AUTO"},"APPMESSAGETYPE":"otp","RICHCONTENT":[1],"ALLOWEDCHANNELS":["sms"]}]}}"#,
        #"{"Messages":{"Authentication":{"productToken":"T"},"Msg":[{"From":"A","To":[{"Number":"0031612345678"}],"Body":{"Content":"x","Type":"auto"},"AppMessageType":"OTP","RichContent":[1],"AllowedChannels":["SMS"]}]}}"#,
        #"{"messages":{"authentication":{"producttoken":"T"},"msg":[{"from":"A","to":[{"number":"0031612345678"}],"body":{"content":"x","type":"Auto"},"appmessagetype":"Otp","richcontent":[1],"allowedchannels":["Sms"]}]}}"#,
    ])
    func keyCasing(request: String) throws {
        let submission = try decodeJSON(request)
        #expect(submission.productToken == "T")
        let message = try #require(submission.onlyMessage)
        #expect(message.from.text == "A")
        #expect(message.recipients.first?.msisdn == MSISDN("+31612345678"))
        #expect(message.body == "x")
        #expect(message.bodyType == .auto)
        #expect(message.appMessageType == .otp)
        #expect(message.richContent == "[1]")
        #expect(message.allowedChannels == .only([.sms]))
    }

    @Test("enum values match in any casing with stray spaces", arguments: [
        (#""body":{"content":"x","type":"AUTO"}"#, CMBodyType.auto),
        (#""body":{"content":"x","type":" auto "}"#, .auto),
        (#""body":{"content":"x","type":"PlainText"}"#, .plaintext),
        (#""body":{"content":"x","type":"TEXT"}"#, .plaintext),
        (#""body":{"content":"x","type":""}"#, .auto),
    ])
    func bodyTypeCasing(body: String, expected: CMBodyType) throws {
        #expect(try decodeJSON(jsonMessage(body: body)).onlyMessage?.bodyType == expected)
    }

    @Test("message types and channels in any casing", arguments: [
        (#""appMessageType":"default""#, AppMessageType.default), (#""appMessageType":" CRITICAL ""#, .critical),
        (#""appMessageType":"oTp""#, .otp),
    ])
    func messageTypeCasing(field: String, expected: AppMessageType) throws {
        #expect(try decodeJSON(jsonMessage(field)).onlyMessage?.appMessageType == expected)
    }

    @Test("channel lists: casing, spaces, duplicates, unsupported names alongside supported ones", arguments: [
        (#"["sms"]"#, AllowedChannels.only([.sms])), (#"[" Push "]"#, .only([.push])),
        (#"["PUSH","push","SMS"]"#, .only([.sms, .push])), (#"["SMS, Push"]"#, .only([.sms, .push])),
        (#"["WhatsApp","SMS"]"#, .only([.sms])), (#"["Whatsapp","Viber","Push"]"#, .only([.push])),
        (#"[]"#, .all), (#"[""]"#, .all), (#"null"#, .all), (#""SMS""#, .only([.sms])),
    ])
    func channelLists(list: String, expected: AllowedChannels) throws {
        #expect(try decodeJSON(jsonMessage(#""allowedChannels":\#(list)"#)).onlyMessage?.allowedChannels == expected)
    }

    @Test("unknown keys are ignored, at every level")
    func unknownKeys() throws {
        let submission = try decodeJSON("""
        {"messages":{"authentication":{"producttoken":"T","username":"x"},"extra":[1,2],
         "msg":[{"from":"A","to":[{"number":"0031612345678","name":"Ann"}],"body":{"content":"x","encoding":"y"},
                 "channel":"SMS","dlr":{"url":"http://x"},"customGrouping4":"z","tariff":0}]},"version":2}
        """)
        #expect(submission.onlyMessage?.body == "x")
        #expect(submission.onlyMessage?.allowedChannels == .all)
    }

    @Test("numeric fields accept JSON numbers and numeric strings", arguments: [
        #""dcs":8,"minimumNumberOfMessageParts":2,"maximumNumberOfMessageParts":4"#,
        #""dcs":"8","minimumNumberOfMessageParts":"2","maximumNumberOfMessageParts":" 4 ""#,
    ])
    func numericFields(fields: String) throws {
        let message = try #require(try decodeJSON(jsonMessage(fields)).onlyMessage)
        #expect(message.dcs == 8)
        #expect(message.minimumParts == 2)
        #expect(message.maximumParts == 4)
        #expect(message.segmentation.alphabet == .ucs2)
    }

    @Test("null and empty text count as absent")
    func nullsAreAbsent() throws {
        let message = try #require(try decodeJSON(jsonMessage("""
        "reference":null,"customGrouping":"","validity":null,"dcs":null,"allowedChannels":null,"appKey":"",
        "appMessageType":null,"richContent":null,"fallbackFor":" ","minimumNumberOfMessageParts":null
        """)).onlyMessage)
        #expect(message.reference == nil && message.customGrouping == nil && message.validity == nil)
        #expect(message.dcs == nil && message.allowedChannels == .all && message.appKey == nil)
        #expect(message.appMessageType == nil && message.richContent == nil && message.fallbackFor == nil)
        #expect(message.minimumParts == 1)
    }

    @Test("recipients: objects and plain strings; a bad number refuses only that recipient")
    func recipients() throws {
        let submission = try decodeJSON(jsonMessage(to: """
        "to":[{"number":"0031612345678"},"+44 7911 123456",{"number":"0612345678"},{"name":"x"},{"number":31612345678},
              {"number":"0031612345678","NUMBER":"0031612345679"}]
        """))
        let message = try #require(submission.onlyMessage)
        #expect(message.recipients.map(\.raw) == ["0031612345678", "+44 7911 123456", "0612345678", "", "31612345678", ""])
        #expect(message.recipients.map(\.msisdn) == [MSISDN("+31612345678"), MSISDN("+447911123456"), nil, nil, nil, nil])
        #expect(message.recipients.compactMap { $0.result.failure?.code } == Array(repeating: .invalidMSISDN, count: 4))
        #expect(message.recipients[4].result.failure?.details == "recipient 5: number must be a string")
        #expect(message.recipients[5].result.failure?.details == "recipient 6 has more than one number")
        #expect(message.recipients[2].result.failure?.details.contains("0612345678") == true)
        #expect(message.recipients[3].result.failure?.details == "recipient 4 has no number")
        #expect(submission.messages[0].recipients == message.recipients.map(\.raw))
    }

    @Test("a message whose recipients are all invalid still decodes; each recipient carries 303")
    func allRecipientsInvalid() throws {
        let message = try #require(try decodeJSON(jsonMessage(to: #""to":["1","2"]"#)).onlyMessage)
        #expect(message.recipients.allSatisfy { $0.result.failure?.code == .invalidMSISDN })
    }

    @Test("1,000 recipients are accepted")
    func thousandRecipients() throws {
        let list = (0..<1_000).map { #"{"number":"00316\#(10_000_000 + $0)"}"# }.joined(separator: ",")
        let message = try #require(try decodeJSON(jsonMessage(to: #""to":[\#(list)]"#)).onlyMessage)
        #expect(message.recipients.count == 1_000)
        #expect(message.recipients.allSatisfy { $0.msisdn != nil })
    }

    @Test("senders: alphanumeric up to 11, numeric up to 16 digits with an optional +", arguments: [
        ("CM Telecom", CMSender.Kind.alphanumeric), ("ABCDEFGHIJK", .alphanumeric), ("Shop24", .alphanumeric),
        ("3669", .numeric), ("+3161234567890123", .numeric), ("0031612345678", .numeric), (" Shop ", .alphanumeric),
    ])
    func validSenders(from: String, kind: CMSender.Kind) throws {
        let message = try #require(try decodeJSON(jsonMessage(from: #""from":"\#(from)""#)).onlyMessage)
        #expect(message.from.kind == kind)
        #expect(message.from.text == from.trimmingASCIISpaces())
    }

    @Test("body: plain string form and content exactly as sent")
    func bodyForms() throws {
        #expect(try decodeJSON(jsonMessage(body: #""body":"plain""#)).onlyMessage?.body == "plain")
        #expect(try decodeJSON(jsonMessage(body: #""body":{"content":" two\nlines \u20ac\ud83d\ude00 "}"#)).onlyMessage?.body
                == " two\nlines €😀 ")
    }

    @Test("richContent is kept as compact JSON, members in order, numbers as sent")
    func richContent() throws {
        let message = try #require(try decodeJSON(jsonMessage("""
        "richContent" : { "z" : [ 1 , 2.50, -3e2, true, false, null ], "a" : { "q\\"uote" : "line\\nbreak\\u0001 é\\/" } }
        """)).onlyMessage)
        #expect(message.richContent == #"{"z":[1,2.50,-3e2,true,false,null],"a":{"q\"uote":"line\nbreak\u0001 é/"}}"#)
        #expect(try decodeJSON(jsonMessage(#""richContent":"just text""#)).onlyMessage?.richContent == #""just text""#)
    }

    @Test("the part limit: 8 parts by default, refused beyond the maximum with 304")
    func partLimits() throws {
        let eightParts = String(repeating: "a", count: 8 * 153)
        let message = try #require(try decodeJSON(jsonMessage(body: #""body":{"content":"\#(eightParts)"}"#)).onlyMessage)
        #expect(message.segmentation.parts == 8)
        let nine = try decodeJSON(jsonMessage(body: #""body":{"content":"\#(eightParts)a"}"#)).onlyError
        #expect(nine == CMMessageError(code: .invalidBody, details: "body needs 9 SMS parts; maximumNumberOfMessageParts is 8"))
        let three = String(repeating: "a", count: 307)
        let refused = try decodeJSON(jsonMessage(#""maximumNumberOfMessageParts":2"#, body: #""body":{"content":"\#(three)"}"#))
        #expect(refused.onlyError == CMMessageError(code: .invalidBody, details: "body needs 3 SMS parts; maximumNumberOfMessageParts is 2"))
        // dcs 8 turns 100 ASCII characters into two UCS-2 parts.
        let hundred = String(repeating: "a", count: 100)
        let ucs2 = try decodeJSON(jsonMessage(#""dcs":8,"maximumNumberOfMessageParts":1"#, body: #""body":{"content":"\#(hundred)"}"#))
        #expect(ucs2.onlyError?.details == "body needs 2 SMS parts; maximumNumberOfMessageParts is 1")
        #expect(try decodeJSON(jsonMessage(#""dcs":0,"maximumNumberOfMessageParts":1"#, body: #""body":{"content":"\#(hundred)"}"#))
                    .onlyMessage?.segmentation == SMSSegmentation(alphabet: .gsm7, units: 100, parts: 1))
    }

    @Test("several messages keep their order, and a bad one does not fail the others")
    func severalMessages() throws {
        let submission = try decodeJSON("""
        {"messages":{"authentication":{"producttoken":"  \(productToken)  "},"msg":[
          {"from":"A","to":[{"number":"0031612345678"}],"body":{"content":"one"},"reference":"r1"},
          {"from":"this sender is too long","to":[{"number":"0031612345678"},{"number":"x"}],"body":{"content":"two"},"reference":"r2"},
          {"from":"C","to":[{"number":"0031612345679"}],"body":{"content":"three"}}]}}
        """)
        #expect(submission.productToken == productToken)
        #expect(submission.messages.map(\.index) == [0, 1, 2])
        #expect(submission.messages.map(\.reference) == ["r1", "r2", nil])
        #expect(submission.messages[1].recipients == ["0031612345678", "x"])
        #expect(submission.messages[1].result.failure?.code == .invalidFrom)
        #expect(submission.messages.map { (try? $0.result.get())?.body } == ["one", nil, "three"])
    }

    @Test("the product token is trimmed, and nil when absent or empty", arguments: [
        (#"{"messages":{"msg":[{"from":"A","to":["0031612345678"],"body":"x"}]}}"#, String?.none),
        (#"{"messages":{"authentication":null,"msg":[{"from":"A","to":["0031612345678"],"body":"x"}]}}"#, nil),
        (#"{"messages":{"authentication":{},"msg":[{"from":"A","to":["0031612345678"],"body":"x"}]}}"#, nil),
        (#"{"messages":{"authentication":{"producttoken":" "},"msg":[{"from":"A","to":["0031612345678"],"body":"x"}]}}"#, nil),
        (#"{"messages":{"authentication":{"producttoken":" abc "},"msg":[{"from":"A","to":["0031612345678"],"body":"x"}]}}"#, "abc"),
    ])
    func productTokens(request: String, expected: String?) throws {
        #expect(try decodeJSON(request).productToken == expected)
    }

    @Test("a UTF-8 byte order mark before the JSON is skipped")
    func byteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(jsonMessage().utf8)
        #expect(try CMCodec.decodeJSON(bytes).onlyMessage?.body == "Hello")
    }
}
