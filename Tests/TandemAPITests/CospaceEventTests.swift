import Foundation
import Testing
import TandemAPI
import TandemCore
import TandemProviders

private let eventOwner = "9aed5e94-3803-11e3-8475-0024e8f90cc0"
private let eventAppKey = "11111111-2222-3333-4444-555555555555"

/// cospace push events: the seed's five events (Tests/integration/cospace_seed_events.json, shared with the
/// black-box test) decoded, turned into one presentation, and rendered by the APNs and FCM renderers.
@Suite("cospace push events: event → presentation → rendered payloads")
struct CospaceEventTests {
    struct Vector {
        let message: String
        let data: JSONValue
        let gcm: JSONValue
        let apns: JSONValue
    }

    static let owner = eventOwner
    static let appKey = eventAppKey

    static func vectors() throws -> [Vector] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("integration/cospace_seed_events.json").path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        guard case .success(.object(let document)) = JSONParser.parse(bytes),
              case .array(let events)? = document.first(where: { $0.key == "events" })?.value else {
            throw VectorError()
        }
        return try events.map { event in
            guard case .object(let members) = event else { throw VectorError() }
            func value(_ key: String) throws -> JSONValue {
                guard let found = members.first(where: { $0.key == key })?.value else { throw VectorError() }
                return found
            }
            guard case .string(let message) = try value("message") else { throw VectorError() }
            return Vector(message: message, data: try value("data"), gcm: try value("gcm"), apns: try value("apns"))
        }
    }

    struct VectorError: Error {}

    static func body(_ message: String, data: JSONValue) -> [UInt8] {
        let event = JSONValue.object([JSONMember(key: "appKey", value: .string(appKey)), JSONMember(key: "owner", value: .string(owner)),
                                      JSONMember(key: "message", value: .string(message)), JSONMember(key: "data", value: data)])
        return Array(event.compactText.utf8)
    }

    static func member(_ value: JSONValue, _ key: String) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    @Test("the five seed events render exactly the documented APNs payload and FCM data")
    func seedVectors() throws {
        let vectors = try Self.vectors()
        #expect(vectors.map(\.message) == ["fax_new", "recording_new", "dialplan_callreverse_start", "dialplan_callreverse_stop",
                                           "chat_message"])
        let apns = APNsRenderer(sound: "default", badge: 3)
        let fcm = FCMRenderer(includeNotification: true, payloadLimit: 4_096)
        let identifiers = [JSONMember(key: "messageId", value: .string("m")), JSONMember(key: "updateId", value: .string("1"))]
        for vector in vectors {
            let event = try CospaceEvent.decode(Self.body(vector.message, data: vector.data)).get()
            #expect(event.owner.text == Self.owner && event.message == vector.message)
            let presentation = event.presentation
            #expect(presentation.isDataOnly)

            // APNs: the payload as the sender posts it, byte for byte in the seed's member order.
            let payload = apns.payload(presentation, title: "cospace", body: vector.message, identifiers: identifiers)
            guard case .success(let rendered) = JSONParser.parse(payload) else {
                Issue.record("APNs payload is not JSON")
                continue
            }
            #expect(rendered == vector.apns, "\(String(decoding: payload, as: UTF8.self))")
            #expect(rendered.compactText == vector.apns.compactText)

            // FCM: the data message's `data` is the documented content, every value a string; no notification.
            let request = fcm.render(presentation, token: "fcm-token", identifiers: identifiers, sender: "cospace",
                                     text: vector.message, priority: .high, ttlSeconds: 60, collapseKey: "c")
            let message = try #require(Self.member(request, "message"))
            #expect(Self.member(message, "data") == vector.gcm, "\(request.compactText)")
            #expect(Self.member(message, "notification") == nil)
            #expect(Self.member(message, "apns") == nil)
            #expect(Self.member(message, "token") == .string("fcm-token"))
            let android = try #require(Self.member(message, "android"))
            #expect(Self.member(android, "notification") == nil)
            #expect(fcm.fittedPayloadBytes(presentation, text: vector.message, identifiers: identifiers, sender: "cospace")
                    == vector.gcm.compactText.utf8.count)
        }
    }

    @Test("GCM strings: numbers in decimal as written, booleans true/false, objects as compact JSON; APNs keeps the types")
    func typing() throws {
        let data = JSONValue.object([JSONMember(key: "count", value: .number("12")), JSONMember(key: "ratio", value: .number("0.5")),
                                     JSONMember(key: "urgent", value: .bool(true)), JSONMember(key: "quiet", value: .bool(false)),
                                     JSONMember(key: "nested", value: .object([JSONMember(key: "a", value: .array([.number("1")]))]))])
        let presentation = try CospaceEvent.decode(Self.body("custom", data: data)).get().presentation
        let rendered = FCMRenderer(includeNotification: false, payloadLimit: 4_096)
            .render(presentation, token: "t", identifiers: [], sender: "s", text: "x", priority: .normal, ttlSeconds: 1, collapseKey: "c")
        let fcmData = Self.member(try #require(Self.member(rendered, "message")), "data")
        #expect(fcmData?.compactText == #"{"owner":"\#(Self.owner)","message":"custom","count":"12","ratio":"0.5","urgent":"true","quiet":"false","nested":"{\"a\":[1]}"}"#)
        let apns = APNsRenderer(sound: nil, badge: nil).render(presentation, title: nil, body: "x", identifiers: [])
        #expect(apns.compactText == #"{"aps":{"content-available":1},"owner":"\#(Self.owner)","message":"custom","count":12,"ratio":0.5,"urgent":true,"quiet":false,"nested":{"a":[1]}}"#)
    }

    @Test("an upper-case owner is written back in lower case; data may be left out")
    func owner() throws {
        let body = #"{"appKey":"\#(Self.appKey)","owner":"9AED5E94-3803-11E3-8475-0024E8F90CC0","message":"ping"}"#
        let event = try CospaceEvent.decode(Array(body.utf8)).get()
        #expect(event.presentation.customData == [JSONMember(key: "owner", value: .string(Self.owner)),
                                                  JSONMember(key: "message", value: .string("ping"))])
    }

    @Test("refused events name the key", arguments: [
        (#"[]"#, nil),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)"}"#, "message"),
        (#"{"appKey":"x","owner":"\#(eventOwner)","message":"m"}"#, "appKey"),
        (#"{"appKey":"\#(eventAppKey)","owner":"bob","message":"m"}"#, "owner"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":""}"#, "message"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"two words"}"#, "message"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"\#(String(repeating: "m", count: 65))"}"#, "message"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","data":[]}"#, "data"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","data":{"owner":"x"}}"#, "data.owner"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","data":{"aps":{}}}"#, "data.aps"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","data":{"google.x":"1"}}"#, "data.google.x"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","data":{"from":"1"}}"#, "data.from"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","data":{"a":null}}"#, "data.a"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","data":{"a":1,"a":2}}"#, "data.a"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","extra":1}"#, "extra"),
        (#"{"appKey":"\#(eventAppKey)","owner":"\#(eventOwner)","message":"m","message":"n"}"#, "message"),
    ] as [(String, String?)])
    func refusals(body: String, field: String?) {
        switch CospaceEvent.decode(Array(body.utf8)) {
        case .success(let event): Issue.record("accepted \(event)")
        case .failure(let refusal): #expect(refusal.field == field, "\(refusal.problem)")
        }
    }
}
