import Foundation
import TandemCore
import Testing
@testable import TandemStore
@testable import TandemStoreSupport

@Suite("Presentation writer")
struct PresentationWriterTests {
    /// Presentations that set every field at least once, escapes and edge values included.
    static func presentations() -> [PushPresentation] {
        var all: [PushPresentation] = []
        var mymsp = PushPresentation()
        mymsp.customData = [JSONMember(key: "msgno", value: .number("12345"))]
        mymsp.android.collapseKey = "news/\"today\""
        mymsp.apnsCollapseID = "news"
        mymsp.android.ttl = .seconds(2_419_200)
        mymsp.apnsTimeToLive = .seconds(2_419_200)
        mymsp.android.restrictedPackageName = "com.example.app"
        mymsp.android.priority = .normal
        all.append(mymsp)

        var texts = PushPresentation()
        texts.title = "Tïtle \\ with \"quotes\"\nand a line"
        texts.subtitle = "sub\u{01}"
        texts.body = "body/slash"
        texts.titleLocKey = "T"
        texts.titleLocArgs = ["a", "b\t"]
        texts.subtitleLocKey = "S"
        texts.subtitleLocArgs = ["c"]
        texts.bodyLocKey = "B"
        texts.bodyLocArgs = ["d", "", "ü😀"]
        texts.launchImage = "img.png"
        texts.summaryArg = "sum"
        texts.summaryArgCount = 3
        texts.badge = -1
        texts.threadID = "thread"
        texts.category = "cat"
        texts.targetContentID = "target"
        texts.contentAvailable = false
        texts.mutableContent = true
        texts.customData = [JSONMember(key: "o", value: .object([JSONMember(key: "k", value: .array([.number("1.50"), .null, .bool(true)]))])),
                            JSONMember(key: "s\"", value: .string("x\"y")), JSONMember(key: "b", value: .bool(false))]
        texts.apnsTimeToLive = .milliseconds(1_500)
        texts.dataOnly = true
        all.append(texts)

        var android = PushPresentation()
        android.android.tag = "tag"
        android.android.clickAction = "OPEN"
        android.android.ticker = "tick"
        android.android.sticky = true
        android.android.eventTime = Timestamp(milliseconds: 1_700_000_000_123)
        android.android.localOnly = false
        android.android.notificationPriority = .max
        android.android.ttl = .zero
        android.android.priority = .high
        all.append(android)

        for bwmi in [BWMIPush.managed(bid: "b1", sentAt: 1_700_000_000_000), .managed(bid: nil, sentAt: 0),
                     .fireAndForget(bid: "b2"), .fireAndForget(bid: nil), .badgeOnly] {
            var presentation = PushPresentation()
            presentation.bwmi = bwmi
            presentation.badge = 4
            all.append(presentation)
        }
        var negative = PushPresentation()
        negative.apnsTimeToLive = .milliseconds(-2_500)
        all.append(negative)
        var sound = PushPresentation()
        sound.sound = .dictionary(name: "alarm", critical: true, volume: 0.5)
        all.append(sound)
        var named = PushPresentation()
        named.sound = .named("default")
        all.append(named)
        all.append(PushPresentation())
        return all
    }

    @Test("every presentation decodes back to itself and means the same JSON as JSONEncoder's")
    func roundTrips() throws {
        let all = Self.presentations()
        #expect(all.count == 12)
        for presentation in all {
            let text = try PresentationWriter.write(presentation)
            #expect(try JSONDecoder().decode(PushPresentation.self, from: Data(text.utf8)) == presentation, "\(text)")
            let encoded = Array(try JSONEncoder().encode(presentation))
            let mine = try JSONParser.parse(Array(text.utf8)).get()
            let foundation = try JSONParser.parse(encoded).get()
            #expect(mine.isEquivalent(to: foundation), "\(text)\n\(String(decoding: encoded, as: UTF8.self))")
        }
    }

    @Test("a myMSP notification's presentation is written without JSONEncoder's slash escapes, nil fields left out")
    func shape() throws {
        var presentation = PushPresentation()
        presentation.customData = [JSONMember(key: "msgno", value: .number("7"))]
        presentation.android.collapseKey = "a/b"
        #expect(try PresentationWriter.write(presentation) == """
            {"titleLocArgs":[],"subtitleLocArgs":[],"bodyLocArgs":[],"customData":[{"key":"msgno","value":"7"}],\
            "android":{"collapseKey":"a/b"}}
            """)
    }
}
