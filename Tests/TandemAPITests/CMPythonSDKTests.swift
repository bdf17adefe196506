import Testing
import TandemAPI
import TandemCore

/// Request bodies sent by CM's own Python SDK (`cm-text-sdk-python` 2.0.4 from PyPI), captured verbatim
/// from `TextClient.send()` posting to a loopback server: `POST /v1.0/message` with
/// `Content-Type: application/json; charset=utf-8` and `X-CM-SDK: text-sdk-python-2.0.4`; the product
/// token travels in the body (`messages.authentication.producttoken`), not in a header. `json.dumps`
/// writes `", "` / `": "` separators and escapes non-ASCII as `\uXXXX` (emoji as surrogate pairs).
@Suite("CM Python SDK requests decode")
struct CMPythonSDKTests {
    /// `TextClient.SendSingleMessage(message:from_:to:)` with the SDK's default `allowedChannels=['SMS']`.
    static let singleMessage = #"{"messages": {"authentication": {"producttoken": "00000000-0000-0000-0000-000000000000"}, "msg": [{"allowedChannels": ["SMS"], "from": "pythonSDK", "to": [{"number": "0031612345678"}], "body": {"type": "AUTO", "content": "Test message"}, "customGrouping3": "text-sdk-python-2.0.4"}]}}"#

    /// Two `AddMessage` calls then `send()`: three recipients (one bogus), a reference, non-ASCII text.
    static let twoMessages = #"{"messages": {"authentication": {"producttoken": "00000000-0000-0000-0000-000000000000"}, "msg": [{"allowedChannels": ["SMS", "Push"], "from": "Tandem", "to": [{"number": "0031612345678"}, {"number": "00447911123456"}, {"number": "bogus"}], "body": {"type": "AUTO", "content": "Hello h\u00e9llo \u20ac {x} \ud83d\ude00"}, "reference": "ref-42", "customGrouping3": "text-sdk-python-2.0.4"}, {"allowedChannels": ["SMS"], "from": "+31612345678", "to": [{"number": "0031612345679"}], "body": {"type": "AUTO", "content": "second"}, "customGrouping3": "text-sdk-python-2.0.4"}]}}"#

    /// `AddRichMessage` with media and `allowedChannels=['Whatsapp', 'SMS']`.
    static let richMessage = #"{"messages": {"authentication": {"producttoken": "00000000-0000-0000-0000-000000000000"}, "msg": [{"allowedChannels": ["Whatsapp", "SMS"], "from": "pythonSDK", "to": [{"number": "0031612345678"}], "body": {"type": "AUTO", "content": "Rich"}, "customGrouping3": "text-sdk-python-2.0.4", "richContent": {"conversation": [{"text": "Rich"}, {"media": {"mediaName": "cm.com", "mediaUri": "https://avatars3.githubusercontent.com/u/8234794", "mimeType": "image/png"}}]}}]}}"#

    /// `AddWhatsappTemplateMessage`: WhatsApp only, empty body.
    static let templateMessage = #"{"messages": {"authentication": {"producttoken": "00000000-0000-0000-0000-000000000000"}, "msg": [{"allowedChannels": ["Whatsapp"], "from": "pythonSDK", "to": [{"number": "0031612345678"}], "body": {"type": "AUTO", "content": ""}, "customGrouping3": "text-sdk-python-2.0.4", "richContent": {"conversation": [{"template": {"whatsapp": {"namespace": "ns-1", "element_name": "welcome", "language": {"policy": "deterministic", "code": "en"}, "components": [{"type": "body", "parameters": [{"type": "text", "text": "Bob"}]}]}}}]}}]}}"#

    @Test("SendSingleMessage: SMS only, body type AUTO, customGrouping3 set by the SDK")
    func singleMessage() throws {
        let submission = try decodeJSON(Self.singleMessage)
        #expect(submission.productToken == productToken)
        let message = try #require(submission.onlyMessage)
        #expect(message.from.text == "pythonSDK")
        #expect(message.recipients.map(\.msisdn) == [MSISDN("+31612345678")])
        #expect(message.body == "Test message")
        #expect(message.bodyType == .auto)
        #expect(message.allowedChannels == .only([.sms]))
        #expect(message.customGrouping3 == "text-sdk-python-2.0.4")
        #expect(message.minimumParts == 1 && message.maximumParts == 8)
    }

    @Test("two messages: escaped non-ASCII text, a bogus recipient refused alone, references")
    func twoMessages() throws {
        let submission = try decodeJSON(Self.twoMessages)
        #expect(submission.messages.count == 2)
        let first = try submission.messages[0].result.get()
        #expect(first.body == "Hello héllo € {x} 😀")
        #expect(first.segmentation == SMSSegmentation(alphabet: .ucs2, units: 20, parts: 1))
        #expect(first.allowedChannels == .only([.sms, .push]))
        #expect(first.reference == "ref-42")
        #expect(first.recipients.map(\.raw) == ["0031612345678", "00447911123456", "bogus"])
        #expect(first.recipients.map { $0.result.failure?.code } == [nil, nil, .invalidMSISDN])
        let second = try submission.messages[1].result.get()
        #expect(second.from == CMSender("+31612345678"))
        #expect(second.segmentation == SMSSegmentation(alphabet: .gsm7, units: 6, parts: 1))
        #expect(submission.messages.map(\.reference) == ["ref-42", nil])
    }

    @Test("rich message: WhatsApp is dropped beside SMS, richContent kept compact")
    func richMessage() throws {
        let message = try #require(try decodeJSON(Self.richMessage).onlyMessage)
        #expect(message.allowedChannels == .only([.sms]))
        #expect(message.richContent == #"{"conversation":[{"text":"Rich"},{"media":{"mediaName":"cm.com","mediaUri":"https://avatars3.githubusercontent.com/u/8234794","mimeType":"image/png"}}]}"#)
    }

    @Test("WhatsApp template: refused with 402, channel named")
    func templateMessage() throws {
        let submission = try decodeJSON(Self.templateMessage)
        #expect(submission.onlyError?.code == .channelNotSupported)
        #expect(submission.onlyError?.details.contains("WhatsApp") == true)
        #expect(submission.messages[0].recipients == ["0031612345678"])
    }
}
