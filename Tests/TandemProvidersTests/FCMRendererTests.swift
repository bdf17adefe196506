import Testing
import TandemCore
@testable import TandemProviders

@Suite("FCM renderer")
struct FCMRendererTests {
    static let messageID = GUID("0f8fad5b-d9cb-469f-a165-70867728950e")!
    static let identifiers = [JSONMember(key: "messageId", value: .string(messageID.text)),
                              JSONMember(key: "updateId", value: .string("5"))]

    private func rendered(_ p: PushPresentation, text: String = "hello", notification: Bool = true,
                          priority: Policy.PushPriority = .high, ttl: Int64 = 30) -> String {
        let bytes = FCMRenderer(includeNotification: notification, payloadLimit: 4_096)
            .payload(p, token: "tok", identifiers: Self.identifiers, sender: "Tandem", text: text, priority: priority,
                     ttlSeconds: ttl, collapseKey: Self.messageID.text)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `LegacyFCMMessage` encodes with `JSONEncoder`, which on Linux orders members differently from run to run,
    /// so "byte for byte" is: the same JSON tree, every string exactly equal, and the same length (so the
    /// same escapes).
    @Test("an empty presentation renders today's message: same JSON, same escapes, same length",
          arguments: ["Hi / \"there\"", "plain", "€ 10 — 😀 e\u{301} 🇳🇱", "line\nbreak\ttab\r\\",
                      String(repeating: "a", count: 9_000), String(repeating: "€", count: 3_000), String(repeating: "👨‍👩‍👧", count: 900)],
          [true, false])
    func emptyMatchesToday(text: String, notification: Bool) throws {
        for (priority, ttl) in [(Policy.PushPriority.high, Int64(30)), (.normal, -5)] {
            let today = LegacyFCMMessage(token: "tok", messageID: Self.messageID, updateID: DeliveryKey(5), sender: "Tandem", text: text,
                                   includeNotification: notification, priority: priority, payloadLimit: 4_096)
            let ours = rendered(PushPresentation(), text: text, notification: notification, priority: priority, ttl: ttl)
            let theirs = String(decoding: today.encoded(ttlSeconds: ttl), as: UTF8.self)
            #expect(try CoreJSON.parsed(ours).isEquivalent(to: try CoreJSON.parsed(theirs)), "\(ours)\n\(theirs)")
            #expect(ours.utf8.count == theirs.utf8.count)
        }
    }

    @Test("control characters other than \\n \\r \\t: the same JSON as today (escapes may be spelled differently)",
          arguments: ["\u{1}", "a\u{8}b\u{C}c\u{1F}"])
    func controlCharacters(text: String) throws {
        let today = LegacyFCMMessage(token: "tok", messageID: Self.messageID, updateID: DeliveryKey(5), sender: "Tandem", text: text,
                               includeNotification: true, priority: .high, payloadLimit: 4_096)
        let ours = try CoreJSON.parsed(rendered(PushPresentation(), text: text))
        #expect(ours.isEquivalent(to: try CoreJSON.parsed(String(decoding: today.encoded(ttlSeconds: 30), as: UTF8.self))))
    }

    static let full: PushPresentation = {
        var p = PushPresentation()
        p.title = "T"
        p.subtitle = "S"
        p.body = "B"
        p.badge = 4
        p.sound = .dictionary(name: "crit.wav", critical: true, volume: 0.8)
        p.threadID = "thread"
        p.customData = [JSONMember(key: "seats", value: .array([.number("9.0"), .number("10")])),
                        JSONMember(key: "flag", value: .bool(true)), JSONMember(key: "name", value: .string("x")),
                        JSONMember(key: "address", value: .object([JSONMember(key: "zip", value: .string("223344"))])),
                        JSONMember(key: "sender", value: .string("spoofed")), JSONMember(key: "messageId", value: .string("spoofed"))]
        p.android.tag = "tag"
        p.android.clickAction = "OPEN"
        p.android.ticker = "tick"
        p.android.sticky = true
        p.android.eventTime = Timestamp(milliseconds: 1_611_014_400_000)
        p.android.localOnly = false
        p.android.notificationPriority = .low
        p.android.collapseKey = "collapse"
        p.android.ttl = .seconds(90)
        p.android.restrictedPackageName = "com.example.app"
        return p
    }()

    @Test("every field renders: string data, the presentation's notification, android fields, and an apns block")
    func everyField() {
        #expect(rendered(Self.full) == #"{"message":{"token":"tok","data":{"messageId":"0f8fad5b-d9cb-469f-a165-70867728950e","updateId":"5","sender":"Tandem","body":"hello","seats":"[9.0,10]","flag":"true","name":"x","address":"{\"zip\":\"223344\"}"},"notification":{"title":"T","body":"B"},"android":{"priority":"HIGH","ttl":"90s","collapse_key":"collapse","restricted_package_name":"com.example.app","notification":{"sound":"crit.wav","tag":"tag","click_action":"OPEN","ticker":"tick","sticky":true,"event_time":"2021-01-19T00:00:00.000Z","local_only":false,"notification_priority":"PRIORITY_LOW","notification_count":4}},"apns":{"payload":{"aps":{"alert":{"subtitle":"S"},"sound":{"name":"crit.wav","critical":1,"volume":0.8},"badge":4,"thread-id":"thread"}}}}}"#)
    }

    @Test("without notifications the app gets data only: no notification, no android.notification")
    func dataOnly() {
        #expect(rendered(Self.full, notification: false) == #"{"message":{"token":"tok","data":{"messageId":"0f8fad5b-d9cb-469f-a165-70867728950e","updateId":"5","sender":"Tandem","body":"hello","seats":"[9.0,10]","flag":"true","name":"x","address":"{\"zip\":\"223344\"}"},"android":{"priority":"HIGH","ttl":"90s","collapse_key":"collapse","restricted_package_name":"com.example.app"},"apns":{"payload":{"aps":{"alert":{"subtitle":"S"},"sound":{"name":"crit.wav","critical":1,"volume":0.8},"badge":4,"thread-id":"thread"}}}}}"#)
    }

    @Test("loc-keys go to android.notification and hide the literal notification texts")
    func localised() {
        var p = PushPresentation()
        p.title = "T"
        p.titleLocKey = "TK"
        p.titleLocArgs = ["t1"]
        p.bodyLocKey = "BK"
        p.bodyLocArgs = ["b1", "b2"]
        #expect(rendered(p, priority: .normal, ttl: -5) == #"{"message":{"token":"tok","data":{"messageId":"0f8fad5b-d9cb-469f-a165-70867728950e","updateId":"5","sender":"Tandem","body":"hello"},"android":{"priority":"NORMAL","ttl":"0s","collapse_key":"0f8fad5b-d9cb-469f-a165-70867728950e","notification":{"title_loc_key":"TK","title_loc_args":["t1"],"body_loc_key":"BK","body_loc_args":["b1","b2"]}},"apns":{"payload":{"aps":{"alert":{"title-loc-key":"TK","title-loc-args":["t1"],"loc-key":"BK","loc-args":["b1","b2"]}}}}}}"#)
    }

    @Test("with a presentation body, only data carries the text, so it gets the whole budget")
    func presentationBodyBudget() throws {
        var p = PushPresentation()
        p.body = "B"
        let text = String(repeating: "a", count: 9_000)
        let tree = try CoreJSON.parsed(rendered(p, text: text))
        guard case .string(let body)? = tree[member: "message"]?[member: "data"]?[member: "body"] else {
            Issue.record("no data.body")
            return
        }
        #expect(body.hasSuffix("…") && body.utf8.count > 3_900)
        #expect(tree[member: "message"]?[member: "notification"]?[member: "body"] == .string("B"))
    }

    @Test("the seed's first example through FCM: Android fields in android.notification, appdata as strings")
    func seedExample() throws {
        let p = try PushPresentation(scgOptions: try scgOptions(SCGSeedVectors.example1Options))
        let tree = try CoreJSON.parsed(rendered(p, text: SCGSeedVectors.body))
        let message = try #require(tree[member: "message"])
        #expect(message[member: "android"]?[member: "notification"] == .object([
            JSONMember(key: "title_loc_key", value: .string("localized-title-with-3-placeholders")),
            JSONMember(key: "title_loc_args", value: .array([.string("value for first title placeholder"),
                                                             .string("value for second title placeholder"),
                                                             .string("value for third title placeholder")])),
            JSONMember(key: "body_loc_key", value: .string("localized-body-with-2-placeholders")),
            JSONMember(key: "body_loc_args", value: .array([.string("value for first body placeholder"),
                                                            .string("value for second body placeholder")])),
            JSONMember(key: "sound", value: .string("critical-sound/cat.wav")),
            JSONMember(key: "tag", value: .string("tag value")),
            JSONMember(key: "click_action", value: .string("click action value")),
            JSONMember(key: "ticker", value: .string("ticker value")),
            JSONMember(key: "sticky", value: .bool(true)),
            JSONMember(key: "event_time", value: .string("2021-01-19T00:00:00.000Z")),
            JSONMember(key: "local_only", value: .bool(true)),
            JSONMember(key: "notification_priority", value: .string("PRIORITY_MIN")),
            JSONMember(key: "notification_count", value: .number("4")),
        ]))
        #expect(message[member: "data"]?[member: "seats"] == .string("[9.0,10]"))
        #expect(message[member: "data"]?[member: "names"] == .string(#"["Jack","Bill"]"#))
        #expect(message[member: "data"]?[member: "appointmentDate"] == .string("01.01.2021"))
        #expect(message[member: "notification"] == nil, "both literal texts are localised")
    }

    @Test("android.priority replaces the policy's priority (myMSP's delaywhileidle=true: NORMAL); nil keeps it")
    func priorityOverride() {
        var p = PushPresentation()
        p.android.priority = .normal
        #expect(rendered(p, priority: .high).contains("\"priority\":\"NORMAL\""))
        #expect(!rendered(p, priority: .high).contains("\"HIGH\""))
        #expect(rendered(PushPresentation(), priority: .high).contains("\"priority\":\"HIGH\""))
        // The APNs-only header fields do not make FCM add an apns block.
        var apnsHeaders = PushPresentation()
        apnsHeaders.apnsCollapseID = "news"
        apnsHeaders.apnsTimeToLive = .seconds(60)
        #expect(!apnsHeaders.hasAPNsFields)
        #expect(rendered(apnsHeaders) == rendered(PushPresentation()))
    }
}
