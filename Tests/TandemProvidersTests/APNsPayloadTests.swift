import Foundation
import Testing
import TandemCore
@testable import TandemProviders

/// The payload APNsSender sends for a message without a presentation: the renderer with an empty one.
@Suite("APNs payload")
struct APNsPayloadTests {
    let messageID = GUID("0f8fad5b-d9cb-469f-a165-70867728950e")!

    private struct Rendered {
        let title: String, body: String, badge: Int?, messageID: GUID

        func encoded() -> [UInt8] {
            APNsRenderer(sound: "default", badge: badge)
                .payload(PushPresentation(), title: title, body: body,
                         identifiers: PushIdentifiers.members(messageID: messageID, updateID: DeliveryKey(42)))
        }
    }

    private func payload(title: String = "Tandem", body: String, badge: Int? = nil) -> Rendered {
        Rendered(title: title, body: body, badge: badge, messageID: messageID)
    }

    /// The body as JSON, read back by Foundation's parser.
    private func decoded(_ bytes: [UInt8]) throws -> (title: String, body: String, object: [String: Any]) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let alert = try #require((object["aps"] as? [String: Any])?["alert"] as? [String: Any])
        return (try #require(alert["title"] as? String), try #require(alert["body"] as? String), object)
    }

    @Test("the text goes in aps.alert with sound and mutable-content; message id and UpdateID as custom keys")
    func shape() throws {
        let bytes = payload(body: "Say \"hi\"\\\n\ttab\u{1}").encoded()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"aps":{"alert":{"title":"Tandem","body":"Say \"hi\"\\\n\ttab\u0001"},"sound":"default","mutable-content":1},"messageId":"0f8fad5b-d9cb-469f-a165-70867728950e","updateId":"42"}"#)
        let (title, body, object) = try decoded(bytes)
        #expect(title == "Tandem")
        #expect(body == "Say \"hi\"\\\n\ttab\u{1}")
        #expect(object["updateId"] as? String == "42")
        #expect(object["messageId"] as? String == messageID.text)
    }

    @Test("a badge is sent only when configured")
    func badge() throws {
        #expect(!String(decoding: payload(body: "x").encoded(), as: UTF8.self).contains("badge"))
        let (_, _, object) = try decoded(payload(body: "x", badge: 3).encoded())
        #expect((object["aps"] as? [String: Any])?["badge"] as? Int == 3)
    }

    @Test("a text that fits is sent whole, up to exactly 4,096 bytes")
    func fitsWhole() throws {
        let overhead = payload(body: "").encoded().count
        let body = String(repeating: "a", count: APNsRenderer.maximumBytes - overhead)
        let bytes = payload(body: body).encoded()
        #expect(bytes.count == APNsRenderer.maximumBytes)
        #expect(try decoded(bytes).body == body)
    }

    @Test("a long text is cut on a character boundary, ends with …, and the payload stays within 4 KB",
          arguments: ["a", "é", "€", "😀", "👨‍👩‍👧", "e\u{301}", "🇳🇱", "\"", "\n", "\u{1}", "ab€😀"])
    func truncation(unit: String) throws {
        let original = String(repeating: unit, count: 5_000 / max(unit.utf8.count, 1) + 1)
        let bytes = payload(body: original).encoded()
        #expect(bytes.count <= APNsRenderer.maximumBytes)
        #expect(bytes.count > APNsRenderer.maximumBytes - 30, "the budget is used: \(bytes.count)")
        let body = try decoded(bytes).body
        #expect(body.hasSuffix("…"))
        let kept = String(body.dropLast())
        #expect(original.hasPrefix(kept))
        #expect(kept.count % unit.count == 0, "cut between whole \(unit.debugDescription) characters")
        #expect(kept.unicodeScalars.count % unit.unicodeScalars.count == 0)
    }

    @Test("a sender name that leaves no room is cut too, leaving room for the text's ellipsis")
    func hugeTitle() throws {
        let bytes = payload(title: String(repeating: "T", count: 6_000), body: "body").encoded()
        #expect(bytes.count <= APNsRenderer.maximumBytes)
        let (title, body, _) = try decoded(bytes)
        #expect(title.hasSuffix("…") && title.count > 3_900)
        #expect(body == "…")
    }

    @Test("JSON lengths count escapes", arguments: [("", 2), ("a", 3), ("é", 4), ("😀", 6), ("\"", 4), ("\u{1F}", 8), ("\t", 4)])
    func jsonLength(text: String, length: Int) {
        #expect(PushText.jsonLength(text) == length)
        var literal = ""
        JSONText.appendString(text, to: &literal)
        #expect(literal.utf8.count == length, "agrees with JSONText")
    }
}
