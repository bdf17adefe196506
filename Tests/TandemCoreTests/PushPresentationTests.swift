import Foundation
import Testing
import TandemCore

@Suite("Push presentation values")
struct PushPresentationTests {
    /// Every field set, numbers written as a sender wrote them.
    static let full: PushPresentation = {
        var p = PushPresentation()
        p.title = "T"
        p.subtitle = "S"
        p.body = "B"
        p.titleLocKey = "TK"
        p.titleLocArgs = ["t1", "t2"]
        p.subtitleLocKey = "SK"
        p.subtitleLocArgs = ["s1"]
        p.bodyLocKey = "BK"
        p.bodyLocArgs = ["b1", "b2", "b3"]
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
                                                                   JSONMember(key: "apt", value: .number("9"))]))]
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

    @Test("the empty presentation is the default and is empty; any field makes it non-empty")
    func empty() {
        #expect(PushPresentation().isEmpty)
        #expect(!PushPresentation().hasAPNsFields)
        #expect(!Self.full.isEmpty)
        var android = PushPresentation()
        android.android.tag = "t"
        #expect(!android.isEmpty && !android.hasAPNsFields, "Android fields are not aps fields")
        var titled = PushPresentation()
        titled.title = "t"
        #expect(!titled.hasAPNsFields, "a plain title is not an aps-only field")
        titled.threadID = "x"
        #expect(titled.hasAPNsFields)
    }

    /// One setter per stored property: `isEmpty` lists the fields one by one, so each must make it false.
    static let oneFieldSet: [(String, @Sendable (inout PushPresentation) -> Void)] = [
        ("title", { $0.title = "" }), ("subtitle", { $0.subtitle = "" }), ("body", { $0.body = "" }),
        ("titleLocKey", { $0.titleLocKey = "" }), ("titleLocArgs", { $0.titleLocArgs = [""] }),
        ("subtitleLocKey", { $0.subtitleLocKey = "" }), ("subtitleLocArgs", { $0.subtitleLocArgs = [""] }),
        ("bodyLocKey", { $0.bodyLocKey = "" }), ("bodyLocArgs", { $0.bodyLocArgs = [""] }),
        ("launchImage", { $0.launchImage = "" }), ("summaryArg", { $0.summaryArg = "" }),
        ("summaryArgCount", { $0.summaryArgCount = 0 }), ("badge", { $0.badge = 0 }), ("sound", { $0.sound = .named("") }),
        ("threadID", { $0.threadID = "" }), ("category", { $0.category = "" }), ("targetContentID", { $0.targetContentID = "" }),
        ("contentAvailable", { $0.contentAvailable = false }), ("mutableContent", { $0.mutableContent = false }),
        ("customData", { $0.customData = [JSONMember(key: "k", value: .null)] }), ("android", { $0.android.ttl = .zero }),
        ("apnsCollapseID", { $0.apnsCollapseID = "" }), ("apnsTimeToLive", { $0.apnsTimeToLive = .zero }),
        ("bwmi", { $0.bwmi = .badgeOnly }), ("dataOnly", { $0.dataOnly = false }),
    ]

    @Test("isEmpty checks every stored property: any one of them set, even to a falsy value, makes it non-empty")
    func emptyChecksEveryField() {
        let stored = Mirror(reflecting: PushPresentation()).children.compactMap(\.label)
        #expect(stored.sorted() == Self.oneFieldSet.map(\.0).sorted(), "a new field must be added to isEmpty and to this list")
        for (field, set) in Self.oneFieldSet {
            var presentation = PushPresentation()
            set(&presentation)
            #expect(!presentation.isEmpty, "\(field) set")
            #expect(presentation != PushPresentation(), "\(field) set")
        }
    }

    @Test("a presentation survives JSON storage exactly, numbers as written", arguments: [PushPresentation(), PushPresentationTests.full])
    func codableRoundTrip(presentation: PushPresentation) throws {
        let data = try JSONEncoder().encode(presentation)
        #expect(try JSONDecoder().decode(PushPresentation.self, from: data) == presentation)
        if !presentation.isEmpty {
            #expect(String(decoding: data, as: UTF8.self).contains(#"[9.0,10]"#), "the literal 9.0 is kept, not 9")
        }
    }

    @Test("JSON values are stored as their compact text and read back strictly")
    func jsonValueCodable() throws {
        let value = JSONValue.object([JSONMember(key: "b", value: .number("1.50")), JSONMember(key: "a", value: .null)])
        let data = try JSONEncoder().encode([value])
        #expect(String(decoding: data, as: UTF8.self) == #"["{\"b\":1.50,\"a\":null}"]"#)
        #expect(try JSONDecoder().decode([JSONValue].self, from: data) == [value])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([JSONValue].self, from: Data(#"["{,}"]"#.utf8)) }
    }

    @Test("JSON equivalence: numbers by value, members in any order", arguments: [
        ("9", "9.0", true), ("[5,8,20]", "[5.0,8.0,2e1]", true), (#"{"a":1,"b":[true]}"#, #"{"b":[true],"a":1.0}"#, true),
        ("9", "9.5", false), (#"{"a":1}"#, #"{"a":1,"b":2}"#, false), (#"{"a":1}"#, #"{"b":1}"#, false),
        ("[1,2]", "[2,1]", false), (#""9""#, "9", false), ("true", "1", false), ("null", "null", true),
        (#""a""#, #""a""#, true), ("[]", "{}", false),
    ])
    func equivalence(left: String, right: String, equivalent: Bool) throws {
        guard case .success(let l) = JSONParser.parse(Array(left.utf8)), case .success(let r) = JSONParser.parse(Array(right.utf8)) else {
            Issue.record("test input is not JSON")
            return
        }
        #expect(l.isEquivalent(to: r) == equivalent)
        #expect(r.isEquivalent(to: l) == equivalent)
    }
}
