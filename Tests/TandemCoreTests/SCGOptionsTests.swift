import Testing
import TandemCore

/// A presentation with `change` applied to an empty one.
private func presentation(_ change: (inout PushPresentation) -> Void) -> PushPresentation {
    var value = PushPresentation()
    change(&value)
    return value
}

private func mapped(_ options: [String: SCGOptionValue]) throws(SCGOptionsError) -> PushPresentation {
    try PushPresentation(scgOptions: options)
}

@Suite("SCG options → push presentation")
struct SCGOptionsTests {
    @Test("each option sets its one field, from a string, a number or a boolean as the seed sends them", arguments: [
        ("push:alert:title", SCGOptionValue.string("T"), presentation { $0.title = "T" }),
        ("push:alert:title", .number("5"), presentation { $0.title = "5" }),
        ("push:alert:title", .bool(true), presentation { $0.title = "true" }),
        ("push:alert:subtitle", .string("S"), presentation { $0.subtitle = "S" }),
        ("push:alert:launch-image", .string("img.png"), presentation { $0.launchImage = "img.png" }),
        ("push:alert:title-loc-key", .string("TK"), presentation { $0.titleLocKey = "TK" }),
        ("push:alert:subtitle-loc-key", .string("SK"), presentation { $0.subtitleLocKey = "SK" }),
        ("push:alert:loc-key", .string("BK"), presentation { $0.bodyLocKey = "BK" }),
        ("push:alert:summary-arg", .string("podcasts"), presentation { $0.summaryArg = "podcasts" }),
        ("push:alert:summary-arg-count", .number("25"), presentation { $0.summaryArgCount = 25 }),
        ("push:alert:summary-arg-count", .string("7"), presentation { $0.summaryArgCount = 7 }),
        ("push:badge", .string("4"), presentation { $0.badge = 4 }),
        ("push:badge", .number("0"), presentation { $0.badge = 0 }),
        ("push:sound", .string("cat.wav"), presentation { $0.sound = .named("cat.wav") }),
        ("push:soundx:name", .string("c.wav"), presentation { $0.sound = .dictionary(name: "c.wav", critical: false, volume: 1.0) }),
        ("push:soundx:critical", .bool(true), presentation { $0.sound = .dictionary(name: "default", critical: true, volume: 1.0) }),
        ("push:soundx:critical", .string("false"), presentation { $0.sound = .dictionary(name: "default", critical: false, volume: 1.0) }),
        ("push:soundx:volume", .number("0.80"), presentation { $0.sound = .dictionary(name: "default", critical: false, volume: 0.8) }),
        ("push:soundx:volume", .string("0"), presentation { $0.sound = .dictionary(name: "default", critical: false, volume: 0) }),
        ("push:thread-id", .string("th"), presentation { $0.threadID = "th" }),
        ("push:category", .string("cat"), presentation { $0.category = "cat" }),
        ("push:target-content-id", .string("win"), presentation { $0.targetContentID = "win" }),
        ("push:alert:tag", .string("tag"), presentation { $0.android.tag = "tag" }),
        ("push:alert:click_action", .string("OPEN"), presentation { $0.android.clickAction = "OPEN" }),
        ("push:alert:ticker", .string("tick"), presentation { $0.android.ticker = "tick" }),
        ("push:alert:sticky", .bool(true), presentation { $0.android.sticky = true }),
        ("push:alert:sticky", .string("false"), presentation { $0.android.sticky = false }),
        ("push:alert:local_only", .bool(false), presentation { $0.android.localOnly = false }),
        ("push:alert:event_time", .number("1611014400000"),
         presentation { $0.android.eventTime = Timestamp(milliseconds: 1_611_014_400_000) }),
        ("push:alert:event_time", .string("-1000"), presentation { $0.android.eventTime = Timestamp(milliseconds: -1_000) }),
        ("push:alert:notification_priority", .string("PRIORITY_MIN"), presentation { $0.android.notificationPriority = .min }),
        ("push:alert:notification_priority", .string("PRIORITY_MAX"), presentation { $0.android.notificationPriority = .max }),
        ("push:appdata:n:seats", .string("9.0"), presentation { $0.customData = [JSONMember(key: "seats", value: .number("9.0"))] }),
        ("push:appdata:n:seats", .number("-1.5e3"), presentation { $0.customData = [JSONMember(key: "seats", value: .number("-1.5e3"))] }),
        ("push:appdata:s:date", .string("01.01.2021"), presentation { $0.customData = [JSONMember(key: "date", value: .string("01.01.2021"))] }),
        ("push:appdata:s:date", .number("7"), presentation { $0.customData = [JSONMember(key: "date", value: .string("7"))] }),
        ("push:appdata:o:address", .string(#"{"zip":"223344","apt":9,"info":{"male":true,"ages":[5,8]}}"#),
         presentation { $0.customData = [JSONMember(key: "address", value: .object([
             JSONMember(key: "zip", value: .string("223344")), JSONMember(key: "apt", value: .number("9")),
             JSONMember(key: "info", value: .object([JSONMember(key: "male", value: .bool(true)),
                                                     JSONMember(key: "ages", value: .array([.number("5"), .number("8")]))])),
         ]))] }),
    ])
    func singleOption(key: String, value: SCGOptionValue, expected: PushPresentation) throws {
        #expect(try mapped([key: value]) == expected)
    }

    @Test("loc-args become arrays ordered by index, gaps allowed (0, 5, 1 → First, Second, Third)",
          arguments: ["title-loc-arg", "subtitle-loc-arg", "loc-arg"])
    func locArgOrder(name: String) throws {
        let result = try mapped(["push:alert:\(name):0": .string("First"), "push:alert:\(name):5": .string("Third"),
                                 "push:alert:\(name):1": .string("Second"), "push:alert:\(name):12": .number("4")])
        let expected = ["First", "Second", "Third", "4"]
        switch name {
        case "title-loc-arg": #expect(result == presentation { $0.titleLocArgs = expected })
        case "subtitle-loc-arg": #expect(result == presentation { $0.subtitleLocArgs = expected })
        default: #expect(result == presentation { $0.bodyLocArgs = expected })
        }
    }

    @Test("appdata arrays are ordered by index from 1, gaps allowed, numbers kept as written")
    func appDataArrays() throws {
        let result = try mapped([
            "push:appdata:n:seats:1": .string("9.0"), "push:appdata:n:seats:2": .string("10"),
            "push:appdata:s:names:2": .string("Bill"), "push:appdata:s:names:1": .string("Jack"),
            "push:appdata:s:gaps:7": .string("c"), "push:appdata:s:gaps:1": .string("a"), "push:appdata:s:gaps:3": .string("b"),
        ])
        #expect(result.customData == [
            JSONMember(key: "gaps", value: .array([.string("a"), .string("b"), .string("c")])),
            JSONMember(key: "names", value: .array([.string("Jack"), .string("Bill")])),
            JSONMember(key: "seats", value: .array([.number("9.0"), .number("10")])),
        ])
    }

    @Test("a loc-key clears the literal it localises, whatever else is sent")
    func locKeysClear() throws {
        let result = try mapped([
            "push:alert:title": .string("T"), "push:alert:title-loc-key": .string("TK"),
            "push:alert:subtitle": .string("S"), "push:alert:subtitle-loc-key": .string("SK"),
            "push:alert:loc-key": .string("BK"),
        ])
        #expect(result == presentation {
            $0.titleLocKey = "TK"
            $0.subtitleLocKey = "SK"
            $0.bodyLocKey = "BK"
        })
        #expect(try mapped(["push:alert:title": .string("T"), "push:alert:loc-key": .string("BK")]).title == "T",
                "the body's loc-key leaves the title")
    }

    @Test("any soundx key makes the sound a dictionary; its name falls back to push:sound, then default", arguments: [
        (["push:sound": SCGOptionValue.string("plain.wav")], PushSound.named("plain.wav")),
        (["push:sound": .string("plain.wav"), "push:soundx:name": .string("crit.wav"), "push:soundx:critical": .bool(true),
          "push:soundx:volume": .number("0.80")], .dictionary(name: "crit.wav", critical: true, volume: 0.8)),
        (["push:sound": .string("plain.wav"), "push:soundx:critical": .bool(true)], .dictionary(name: "plain.wav", critical: true, volume: 1.0)),
        (["push:soundx:volume": .string("0.25")], .dictionary(name: "default", critical: false, volume: 0.25)),
    ])
    func soundx(options: [String: SCGOptionValue], expected: PushSound) throws {
        #expect(try mapped(options).sound == expected)
    }

    @Test("keys that do not start with push: are not presentation and are ignored")
    func otherKeysIgnored() throws {
        #expect(try mapped(["sms:type": .string("x"), "badge": .string("oops"), "pushy:badge": .string("1"), "": .bool(true)]).isEmpty)
    }

    @Test("a value of the wrong kind is refused, naming the key", arguments: [
        ("push:badge", SCGOptionValue.string("four"), SCGOptionsError.Expected.nonNegativeInteger),
        ("push:badge", .string("-1"), .nonNegativeInteger),
        ("push:badge", .number("4.0"), .nonNegativeInteger),
        ("push:badge", .bool(true), .nonNegativeInteger),
        ("push:badge", .string(" 4"), .nonNegativeInteger),
        ("push:alert:summary-arg-count", .number("1e2"), .nonNegativeInteger),
        ("push:appdata:n:x", .string("nine"), .number),
        ("push:appdata:n:x", .string("09"), .number),
        ("push:appdata:n:x", .string("9 "), .number),
        ("push:appdata:n:x", .string("NaN"), .number),
        ("push:appdata:n:x", .bool(false), .number),
        ("push:appdata:n:x:1", .string("+1"), .number),
        ("push:soundx:volume", .string("1.5"), .volume),
        ("push:soundx:volume", .number("-0.1"), .volume),
        ("push:soundx:volume", .string("loud"), .volume),
        ("push:soundx:critical", .string("yes"), .boolean),
        ("push:soundx:critical", .number("1"), .boolean),
        ("push:alert:sticky", .string("TRUE"), .boolean),
        ("push:alert:local_only", .number("0"), .boolean),
        ("push:alert:event_time", .string("2021-01-19"), .epochMilliseconds),
        ("push:alert:event_time", .number("1611014400000.5"), .epochMilliseconds),
        ("push:alert:notification_priority", .string("URGENT"), .notificationPriority),
        ("push:alert:notification_priority", .string("priority_min"), .notificationPriority),
        ("push:alert:notification_priority", .number("1"), .notificationPriority),
    ])
    func invalidValues(key: String, value: SCGOptionValue, expected: SCGOptionsError.Expected) {
        #expect(throws: SCGOptionsError.invalidValue(key: key, expected: expected)) { try mapped([key: value]) }
    }

    @Test("unknown push: keys, malformed indexes and appdata names are refused, naming the key", arguments: [
        "push:alert:body", "push:alert", "push:foo", "push:", "push:badge:1", "push:alert:title:1", "push:soundx:loud",
        "push:soundx", "push:alert:loc-arg:01", "push:alert:loc-arg:x", "push:alert:loc-arg:-1", "push:alert:loc-arg:",
        "push:alert:loc-arg:1234567890", "push:alert:loc-arg:1:2", "push:appdata:s:x:0", "push:appdata:s:x:01",
        "push:appdata:o:x:1", "push:appdata:q:x", "push:appdata:s:", "push:appdata:s", "push:appdata:s:x:1:2",
        "push:appdata:n:x:y", "push:content-available", "push:mutable-content",
    ])
    func unknownKeys(key: String) {
        #expect(throws: SCGOptionsError.unknownKey(key)) { try mapped([key: .string("1")]) }
    }

    @Test("an o: value must be a string of one JSON object", arguments: [
        (SCGOptionValue.string("{\"zip\":"), "expected a value, got the end of file at offset 7"),
        (.string("{'a':1}"), "expected a key in double quotes, got \'\'\' at offset 1"),
        (.string("[1,2]"), "an array, not an object"),
        (.string("\"text\""), "a string, not an object"),
        (.string("{} {}"), "unexpected \'{\' after the end of the document at offset 3"),
        (.number("1"), "not a string of JSON"),
        (.bool(true), "not a string of JSON"),
    ])
    func objects(value: SCGOptionValue, problem: String) {
        #expect(throws: SCGOptionsError.notAJSONObject(key: "push:appdata:o:x", problem: problem)) {
            try mapped(["push:appdata:o:x": value])
        }
    }

    @Test("appdata arrays hold one type; a name is used once; aps is reserved", arguments: [
        (["push:appdata:n:x:1": SCGOptionValue.string("1"), "push:appdata:s:x:2": .string("b")],
         SCGOptionsError.mixedArray(key: "push:appdata:s:x:2")),
        (["push:appdata:s:x:1": .string("a"), "push:appdata:n:x:2": .string("2")], .mixedArray(key: "push:appdata:s:x:1")),
        (["push:appdata:s:x": .string("a"), "push:appdata:s:x:1": .string("b")], .conflictingAppData(key: "push:appdata:s:x:1")),
        (["push:appdata:n:x": .string("1"), "push:appdata:s:x": .string("b")], .conflictingAppData(key: "push:appdata:s:x")),
        (["push:appdata:o:x": .string("{}"), "push:appdata:s:x:1": .string("b")], .conflictingAppData(key: "push:appdata:s:x:1")),
        (["push:appdata:s:aps": .string("a")], .reservedAppData(key: "push:appdata:s:aps")),
        (["push:appdata:o:aps": .string("{}")], .reservedAppData(key: "push:appdata:o:aps")),
    ])
    func appDataConflicts(options: [String: SCGOptionValue], expected: SCGOptionsError) {
        #expect(throws: expected) { try mapped(options) }
        #expect(expected.key.hasPrefix("push:appdata:"))
    }

    @Test("with several faults the error is always the first key in sorted order")
    func deterministicError() {
        let options: [String: SCGOptionValue] = ["push:zzz": .string("1"), "push:badge": .string("x"), "push:alert:nope": .string("1")]
        for _ in 0..<20 {
            #expect(throws: SCGOptionsError.unknownKey("push:alert:nope")) { try mapped(options) }
        }
    }

    @Test("values of a parsed options object: strings, numbers and booleans; nothing else", arguments: [
        (JSONValue.string("a"), SCGOptionValue?.some(.string("a"))), (.number("0.80"), .number("0.80")), (.bool(true), .bool(true)),
        (.null, nil), (.array([]), nil), (.object([]), nil),
    ])
    func optionValues(json: JSONValue, expected: SCGOptionValue?) {
        #expect(SCGOptionValue(json: json) == expected)
    }
}
