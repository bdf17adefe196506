import Foundation
import Testing
import TandemCore
@testable import TandemAPI

/// The SCG request codec: addresses, every field into the command and its stored fields, and each refusal
/// naming its field.
@Suite("SCG codec")
struct SCGCodecTests {
    static let token = "b27fe514f9f7fae149491cdd101f917ff1ec6249ee9f33f0649070f48cc8d860"

    static func decode(_ json: String) throws(SCGError) -> SCGMessageRequest {
        try SCGCodec.decodeMessageRequest(Array(json.utf8))
    }

    static func failure(_ json: String) -> SCGError? {
        do { _ = try decode(json); return nil } catch { return error }
    }

    @Test("addresses: psh:apn → iOS, psh:gcm and psh:fcm → Android, phone numbers with or without + → MSISDN",
          arguments: [
              ("psh:apn@Xa13m001g9co35SkkcHeE6@\(token)", Recipient.pushAddress(PushAddress(platform: .iOS, app: "Xa13m001g9co35SkkcHeE6", token: PushToken(token)!))),
              ("PSH:FCM@shop@tok-1", .pushAddress(PushAddress(platform: .android, app: "shop", token: PushToken("tok-1")!))),
              ("psh:gcm@shop@tok:2", .pushAddress(PushAddress(platform: .android, app: "shop", token: PushToken("tok:2")!))),
              ("+31612345678", .msisdn(MSISDN("+31612345678")!)),
              ("14155550123", .msisdn(MSISDN("+14155550123")!)),
          ])
    func addresses(_ text: String, _ expected: Recipient) throws {
        #expect(try SCGAddress.parse(text).get() == expected)
    }

    @Test("addresses that are neither are refused with the reason", arguments: [
        ("psh:wns@shop@tok", "is not apn, gcm or fcm"), ("psh:apn@shop", "must be psh:"), ("psh:apn@@tok", "names no sender"),
        ("psh:apn@shop@to ken", "device token"), ("email:a@b.c", "neither"), ("0612345678", "neither"), ("+1234", "neither"),
        ("+3161234567x", "neither"),
    ])
    func badAddresses(_ text: String, _ reason: String) {
        guard case .failure(let error) = SCGAddress.parse(text) else { Issue.record("\(text) was accepted"); return }
        #expect(error.problem.contains(reason))
    }

    @Test("every field: from without sender_id:, recipients in order, options as the presentation, app, expiry, reference, campaign; stored fields as compact JSON")
    func everyField() throws {
        let request = try Self.decode("""
            {"from":"sender_id:ShopNL","to":["psh:apn@Xa13m001g9co35SkkcHeE6@\(Self.token)","+31612345678"],
             "body":"Hi","options":{"push:badge":"4","push:sound":"cat.wav","other:key":"ignored"},
             "application_id":"11111111-2222-4333-8444-555555555555","external_id":"ext-1","expiry_time":"2030-01-01T00:00:00Z",
             "scheduled_delivery_time":"2029-12-31T23:00:00+01:00","test_message_flag":true,"campaign_id":"spring",
             "failover":{"type":"SMS"},"conversation_id":null,"attachments":null,"unknown_field":5}
            """)
        #expect(request.sender == "ShopNL" && request.from == "sender_id:ShopNL")
        #expect(request.recipients == [.pushAddress(PushAddress(platform: .iOS, app: "Xa13m001g9co35SkkcHeE6", token: PushToken(Self.token)!)),
                                       .msisdn(MSISDN("+31612345678")!)])
        var presentation = PushPresentation()
        presentation.badge = 4
        presentation.sound = .named("cat.wav")
        #expect(request.presentation == presentation)
        let command = request.command
        #expect(command.api == "scg" && command.body == "Hi" && command.sender == "ShopNL")
        #expect(command.appKey == AppKey("11111111-2222-4333-8444-555555555555"))
        #expect(command.validity == .absolute(Timestamp(milliseconds: 1_893_456_000_000)))
        #expect(command.reference == "ext-1" && command.customGroupings == ["spring", nil, nil])
        #expect(command.allowedChannels == .all && command.messageType == nil)
        #expect(command.extra == #"{"from":"sender_id:ShopNL","to":["psh:apn@Xa13m001g9co35SkkcHeE6@\#(Self.token)","+31612345678"],"#
            + #""application_id":"11111111-2222-4333-8444-555555555555","external_id":"ext-1","expiry_time":"2030-01-01T00:00:00Z","#
            + #""scheduled_delivery_time":"2029-12-31T23:00:00+01:00","test_message_flag":true,"campaign_id":"spring","failover":{"type":"SMS"}}"#)
    }

    @Test("the least request: from, to and body; only from and to are stored")
    func least() throws {
        let command = try Self.decode(#"{"from":"Shop","to":["+31612345678"],"body":"Hi"}"#).command
        #expect(command.extra == #"{"from":"Shop","to":["+31612345678"]}"#)
        #expect(command.appKey == nil && command.validity == nil && command.reference == nil && command.presentation == PushPresentation())
    }

    @Test("the seed's first example decodes, its options mapped (numbers and booleans as sent)")
    func seedExample() throws {
        let request = try Self.decode("""
            {"to":["psh:apn@Xa13m001g9co35SkkcHeE6@\(Self.token)"],"from":"Xa13m001g9co35SkkcHeE6","body":"non localized body",
             "options":{"push:alert:loc-key":"localized-body-with-2-placeholders","push:alert:loc-arg:1":"first","push:alert:loc-arg:2":"second",
             "push:alert:summary-arg-count":25,"push:soundx:critical":true,"push:soundx:volume":0.80,"push:soundx:name":"critical-sound/cat.wav",
             "push:appdata:n:seats:1":"9.0","push:appdata:n:seats:2":"10"}}
            """)
        #expect(request.presentation.bodyLocKey == "localized-body-with-2-placeholders")
        #expect(request.presentation.bodyLocArgs == ["first", "second"])
        #expect(request.presentation.summaryArgCount == 25)
        #expect(request.presentation.sound == .dictionary(name: "critical-sound/cat.wav", critical: true, volume: 0.8))
    }

    @Test("refusals name the field", arguments: [
        (#"[1]"#, SCGErrorCode.malformedRequest, nil as String?),
        (#"{"from":"#, .malformedRequest, nil),
        (#"{"to":["+31612345678"],"body":"Hi"}"#, .invalidField, "from"),
        (#"{"from":"","to":["+31612345678"],"body":"Hi"}"#, .invalidField, "from"),
        (#"{"from":"sender_id:","to":["+31612345678"],"body":"Hi"}"#, .invalidField, "from"),
        (#"{"from":"Shop","from":"Shop","to":["+31612345678"],"body":"Hi"}"#, .invalidField, "from"),
        (#"{"from":"Xa13m001g9co35SkkcHeE6","to":["psh:apn@a@t","+31612345678"],"body":"Hi"}"#, .invalidField, "from"),
        (#"{"from":"Shop","body":"Hi"}"#, .invalidField, "to"),
        (#"{"from":"Shop","to":"+31612345678","body":"Hi"}"#, .invalidField, "to"),
        (#"{"from":"Shop","to":[],"body":"Hi"}"#, .invalidField, "to"),
        (#"{"from":"Shop","to":["+31612345678",5],"body":"Hi"}"#, .invalidField, "to[1]"),
        (#"{"from":"Shop","to":["+31612345678","psh:xyz@a@b"],"body":"Hi"}"#, .invalidField, "to[1]"),
        (#"{"from":"Shop","to":["+31612345678"]}"#, .invalidField, "body"),
        (#"{"from":"Shop","to":["+31612345678"],"body":""}"#, .invalidField, "body"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"a\u0001"}"#, .invalidField, "body"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","options":["push:badge"]}"#, .invalidField, "options"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","options":{"push:badge":[1]}}"#, .invalidField, "options.push:badge"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","options":{"push:badge":"many"}}"#, .invalidField, "options.push:badge"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","options":{"push:colour":"red"}}"#, .invalidField, "options.push:colour"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","options":{"push:appdata:n:seats":"nine"}}"#, .invalidField, "options.push:appdata:n:seats"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","options":{"push:appdata:o:address":"{bad"}}"#, .invalidField, "options.push:appdata:o:address"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","options":{"push:appdata:n:x:1":"1","push:appdata:s:x:2":"a"}}"#, .invalidField, "options.push:appdata:s:x:2"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","application_id":"shop"}"#, .invalidField, "application_id"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","expiry_time":"tomorrow"}"#, .invalidField, "expiry_time"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","expiry_time":"2030-01-01T00:00:00"}"#, .invalidField, "expiry_time"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","scheduled_delivery_time":5}"#, .invalidField, "scheduled_delivery_time"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","test_message_flag":"yes"}"#, .invalidField, "test_message_flag"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","external_id":""}"#, .invalidField, "external_id"),
        (#"{"from":"Shop","to":["+31612345678"],"body":"Hi","campaign_id":7}"#, .invalidField, "campaign_id"),
    ])
    func refusals(_ json: String, _ code: SCGErrorCode, _ field: String?) throws {
        let error = try #require(Self.failure(json))
        #expect(error.code == code && error.status == 400)
        #expect(error.field == field)
        if let field { #expect(error.description.contains(field)) }
    }

    @Test("an options fault names the key in the body's JSON")
    func optionsErrorJSON() throws {
        let error = try #require(Self.failure(#"{"from":"Shop","to":["+31612345678"],"body":"Hi","options":{"push:soundx:volume":"2"}}"#))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(error.body)) as? [String: [String: String]])
        #expect(json["error"]?["code"] == "INVALID_FIELD" && json["error"]?["field"] == "options.push:soundx:volume")
        #expect(json["error"]?["description"] == "options.push:soundx:volume: must be a number from 0.0 to 1.0")
    }

    @Test("a body may be empty when options give the push a text")
    func emptyBodyWithOptions() throws {
        let request = try Self.decode(#"{"from":"Shop","to":["psh:apn@shop@tok"],"body":"","options":{"push:alert:loc-key":"k"}}"#)
        #expect(request.body == "" && request.presentation.bodyLocKey == "k")
    }

    @Test("state changes: only CANCELED", arguments: [(#"{"state":"CANCELED"}"#, true), (#"{"state":"PAUSED"}"#, false),
                                                    (#"{}"#, false), (#"{"state":1}"#, false)])
    func stateChange(_ json: String, _ accepted: Bool) {
        let result = Result { () throws(SCGError) in try SCGCodec.decodeStateChange(Array(json.utf8)) }
        switch result {
        case .success(let state): #expect(accepted && state == .canceled)
        case .failure(let error): #expect(!accepted && error.field == "state" && error.status == 400)
        }
    }

    @Test("per-recipient message ids are <request id>-<n>", arguments: [
        ("0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b-1", 1), ("0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b-12", 12),
        ("0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b-0", nil), ("0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b-01", nil),
        ("0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b", nil), ("x-1", nil),
    ] as [(String, Int?)])
    func messageIDs(_ text: String, _ position: Int?) {
        #expect(SCGMessageEntry.parseID(text)?.1 == position)
    }
}
