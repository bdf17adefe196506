import Testing
import TandemCore
@testable import TandemProviders

@Suite("APNs renderer")
struct APNsRendererTests {
    static let messageID = GUID("0f8fad5b-d9cb-469f-a165-70867728950e")!
    static let identifiers = [JSONMember(key: "messageId", value: .string(messageID.text)),
                              JSONMember(key: "updateId", value: .string("42"))]

    @Test("an empty presentation renders today's payload byte for byte", arguments: [
        ("Tandem", "Say \"hi\"\\\n\ttab\u{1}/", "default", nil), ("Tandem", "x", nil, 3), ("", "", "chime.caf", 0),
        ("Bank ✓", "€ 10 — 😀 e\u{301} 🇳🇱", "default", 12),
    ] as [(String, String, String?, Int?)])
    func emptyMatchesToday(title: String, body: String, sound: String?, badge: Int?) {
        let today = APNsPayload(title: title, body: body, sound: sound, badge: badge, messageID: Self.messageID,
                                updateID: DeliveryKey(42)).encoded()
        let rendered = APNsRenderer(sound: sound, badge: badge).payload(PushPresentation(), title: title, body: body,
                                                                        identifiers: Self.identifiers)
        #expect(String(decoding: rendered, as: UTF8.self) == String(decoding: today, as: UTF8.self))
    }

    @Test("an empty presentation cuts long texts exactly as today", arguments: [
        ("Tandem", "a"), ("Tandem", "é"), ("Tandem", "😀"), ("Tandem", "👨‍👩‍👧"), ("Tandem", "\""), ("Tandem", "\u{1}"),
        (String(repeating: "T", count: 6_000), "x"), (String(repeating: "€", count: 3_000), "ab€😀"),
    ])
    func emptyCutsAsToday(title: String, unit: String) {
        let body = String(repeating: unit, count: 5_000 / unit.utf8.count + 1)
        let today = APNsPayload(title: title, body: body, sound: "default", badge: nil, messageID: Self.messageID,
                                updateID: DeliveryKey(42)).encoded()
        let rendered = APNsRenderer(sound: "default", badge: nil).payload(PushPresentation(), title: title, body: body,
                                                                          identifiers: Self.identifiers)
        #expect(rendered == today)
        #expect(rendered.count <= APNsPayload.maximumBytes)
    }

    @Test("every aps field renders, in order; custom data follows aps; Android fields are ignored")
    func everyLiteralField() {
        var p = PushPresentation()
        p.title = "T"
        p.subtitle = "S"
        p.body = "B"
        p.launchImage = "launch.png"
        p.summaryArg = "podcasts"
        p.summaryArgCount = 7
        p.badge = 4
        p.sound = .dictionary(name: "crit.wav", critical: true, volume: 0.8)
        p.threadID = "thread"
        p.category = "cat"
        p.targetContentID = "window"
        p.contentAvailable = true
        p.mutableContent = false
        p.customData = [JSONMember(key: "seats", value: .array([.number("9.0"), .number("10")])),
                        JSONMember(key: "address", value: .object([JSONMember(key: "zip", value: .string("223344")),
                                                                   JSONMember(key: "apt", value: .number("9"))])),
                        JSONMember(key: "messageId", value: .string("spoofed")), JSONMember(key: "aps", value: .null)]
        p.android.tag = "tag"
        p.android.eventTime = Timestamp(milliseconds: 0)
        p.android.collapseKey = "c"
        let rendered = APNsRenderer(sound: "default", badge: 3).payload(p, title: "Sender", body: "text", identifiers: Self.identifiers)
        #expect(String(decoding: rendered, as: UTF8.self) == #"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"launch.png","summary-arg":"podcasts","summary-arg-count":7},"sound":{"name":"crit.wav","critical":1,"volume":0.8},"badge":4,"thread-id":"thread","category":"cat","target-content-id":"window","content-available":1},"seats":[9.0,10],"address":{"zip":"223344","apt":9},"messageId":"0f8fad5b-d9cb-469f-a165-70867728950e","updateId":"42"}"#)
    }

    @Test("loc-keys hide the literal title, subtitle and body (also the sender and the message text)")
    func localised() {
        var p = PushPresentation()
        p.title = "T"
        p.subtitle = "S"
        p.titleLocKey = "TK"
        p.titleLocArgs = ["t1", "t2"]
        p.subtitleLocKey = "SK"
        p.subtitleLocArgs = ["s1"]
        p.bodyLocKey = "BK"
        p.bodyLocArgs = ["b1"]
        p.sound = .dictionary(name: "d.wav", critical: false, volume: 1)
        let rendered = APNsRenderer(sound: "default", badge: 3).payload(p, title: "Sender", body: String(repeating: "long ", count: 2_000),
                                                                        identifiers: Self.identifiers)
        #expect(String(decoding: rendered, as: UTF8.self) == #"{"aps":{"alert":{"title-loc-key":"TK","title-loc-args":["t1","t2"],"subtitle-loc-key":"SK","subtitle-loc-args":["s1"],"loc-key":"BK","loc-args":["b1"]},"sound":{"name":"d.wav","critical":0,"volume":1.0},"badge":3,"mutable-content":1},"messageId":"0f8fad5b-d9cb-469f-a165-70867728950e","updateId":"42"}"#)
    }

    @Test("a presentation's own title and body are cut to fit like the defaults")
    func presentationTextsCut() throws {
        var p = PushPresentation()
        p.title = String(repeating: "T", count: 6_000)
        p.body = String(repeating: "b", count: 6_000)
        p.threadID = "thread"
        let rendered = APNsRenderer(sound: nil, badge: nil).payload(p, title: "Sender", body: "text", identifiers: Self.identifiers)
        #expect(rendered.count <= APNsPayload.maximumBytes && rendered.count > APNsPayload.maximumBytes - 8)
        let tree = try CoreJSON.parsed(String(decoding: rendered, as: UTF8.self))
        guard case .string(let title)? = tree[member: "aps"]?[member: "alert"]?[member: "title"],
              case .string(let body)? = tree[member: "aps"]?[member: "alert"]?[member: "body"] else {
            Issue.record("no title or body")
            return
        }
        #expect(title.hasPrefix("TTT") && title.hasSuffix("…") && body == "…")
        #expect(tree[member: "aps"]?[member: "thread-id"] == .string("thread"))
    }

    @Test("the seed's worked examples render their documented payloads (plus thread-id, which the table maps)",
          arguments: [(SCGSeedVectors.example1Options, SCGSeedVectors.example1Payload),
                      (SCGSeedVectors.example2Options, SCGSeedVectors.example2Payload)])
    func seedExamples(options: String, documented: String) throws {
        let presentation = try PushPresentation(scgOptions: try scgOptions(options))
        // An SCG push has no default title or sound, no Tandem UpdateID and no mutable-content; the message-id
        // key carries the SCG message id, whose value differs per request.
        let renderer = APNsRenderer(sound: nil, badge: nil, mutableContent: false)
        let identifiers = [JSONMember(key: "scg-message-id", value: .string("ours"))]
        let bytes = renderer.payload(presentation, title: nil, body: SCGSeedVectors.body, identifiers: identifiers)
        let rendered = try CoreJSON.parsed(String(decoding: bytes, as: UTF8.self))
        #expect(rendered == renderer.render(presentation, title: nil, body: SCGSeedVectors.body, identifiers: identifiers))

        let page = try CoreJSON.parsed(documented)
        // Both documented payloads leave out `thread-id` although both requests send `push:thread-id` and the
        // field table maps it to `thread-id`: the table is followed, so the expectation adds it.
        #expect(page[member: "aps"]?[member: "thread-id"] == nil)
        let aps = try #require(page[member: "aps"]).setting("thread-id", to: .string("thread id value"))
        let expected = page.setting("aps", to: aps).setting("scg-message-id", to: .string("ours"))
        #expect(rendered.isEquivalent(to: expected), "\(rendered.compactText)")
        #expect(!rendered.isEquivalent(to: page.setting("scg-message-id", to: .string("ours"))), "thread-id is there")
    }
}
