import Foundation
import Testing
@testable import TandemAPI
import TandemCore

@Suite("messages render as the JSON array of the spec")
struct RenderingTests {
    private let message = InboxMessage(
        id: Fixtures.guid("7AF65395-2dc9-45c4-aa58-a7f53e33c4f3"), updateID: DeliveryKey(6_509_643_555), recipient: Fixtures.recipient,
        sender: "MyApp", body: "Your first message!", dateTime: Fixtures.ms("2026-11-21T10:15:30.123Z"), status: .delivered)

    private func text(_ query: ODataQuery, _ messages: [InboxMessage]) -> String {
        String(decoding: query.renderJSON(messages), as: UTF8.self)
    }

    @Test("every field, in spec order")
    func allFields() {
        #expect(text(ODataQuery(), [message]) == """
            [{"ID":"7af65395-2dc9-45c4-aa58-a7f53e33c4f3","UpdateID":"6509643555","Recipient":"0031612345678",\
            "Sender":"MyApp","Body":"Your first message!","DateTime":"2026-11-21T10:15:30.123","Status":"Delivered"}]
            """)
    }

    @Test("$select keeps only the selected fields, in spec order whatever order they were asked in")
    func selected() throws {
        let query = try parse([QueryPair("$select", "Status,ID,DateTime")])
        #expect(text(query, [message, message]) == """
            [{"ID":"7af65395-2dc9-45c4-aa58-a7f53e33c4f3","DateTime":"2026-11-21T10:15:30.123","Status":"Delivered"},\
            {"ID":"7af65395-2dc9-45c4-aa58-a7f53e33c4f3","DateTime":"2026-11-21T10:15:30.123","Status":"Delivered"}]
            """)
    }

    @Test("a missing body is left out, even when selected; an empty selection of present fields gives {}")
    func missingBody() throws {
        var bodiless = message
        bodiless.body = nil
        #expect(text(try parse([QueryPair("$select", "Body,Sender")]), [bodiless]) == #"[{"Sender":"MyApp"}]"#)
        #expect(text(try parse([QueryPair("$select", "Body")]), [bodiless]) == "[{}]")
        #expect(!text(ODataQuery(), [bodiless]).contains("Body"))
    }

    @Test("no messages: an empty array")
    func empty() {
        #expect(ODataQuery().renderJSON([]) == Array("[]".utf8))
    }

    @Test("quotes, backslashes and control characters are escaped; other text passes through as UTF-8")
    func escaping() throws {
        var tricky = message
        tricky.sender = "O'Reilly \"CM\""
        tricky.body = "a\\b\nc\td\r\u{01}\u{1F}\u{7F}é€😀\u{2028}"
        let bytes = try parse([QueryPair("$select", "Sender,Body")]).renderJSON([tricky])
        #expect(String(decoding: bytes, as: UTF8.self) == #"[{"Sender":"O'Reilly \"CM\"","Body":"a\\b\nc\td\r\u0001\u001f"#
                + "\u{7F}é€😀\u{2028}\"}]")
        // An independent parser reads back exactly the original strings.
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: String]])
        #expect(parsed == [["Sender": tricky.sender, "Body": tricky.body ?? ""]])
    }

    @Test("rendered DateTime and UpdateID read back through Foundation")
    func roundTrip() throws {
        let stored = Fixtures.stored
        let bytes = ODataQuery().renderJSON(stored)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: String]])
        #expect(parsed.count == stored.count)
        for (object, original) in zip(parsed, stored) {
            #expect(object["DateTime"].map { Fixtures.ms($0 + "Z") } == original.dateTime)  // UTC, written without the zone letter
            #expect(object["UpdateID"].flatMap { Int64($0) } == original.updateID.rawValue)
            #expect(object["ID"] == original.id.text)
            #expect(object["Body"] == original.body)
            #expect(object["Status"] == original.status.wireName)
        }
    }
}
