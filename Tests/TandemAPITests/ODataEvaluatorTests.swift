import Testing
@testable import TandemAPI
import TandemCore

@Suite("the in-memory evaluator filters, orders, skips and takes")
struct EvaluatorTests {
    private func numbers(_ pairs: [QueryPair]) throws -> [Int] {
        Fixtures.numbers(try parse(pairs).apply(to: Fixtures.stored))
    }

    private func filtered(_ filter: String) throws -> [Int] {
        try numbers([QueryPair("$filter", filter)])
    }

    @Test("no query: every message, newest first, ties by ID")
    func defaultOrder() throws {
        #expect(try numbers([]) == [12, 7, 8, 9, 6, 5, 3, 4, 2, 1, 11, 10])
    }

    @Test("skip and top page through the ordered result")
    func paging() throws {
        #expect(try numbers([QueryPair("$top", "3")]) == [12, 7, 8])
        #expect(try numbers([QueryPair("$skip", "2"), QueryPair("$top", "3")]) == [8, 9, 6])
        #expect(try numbers([QueryPair("$skip", "11")]) == [10])
        #expect(try numbers([QueryPair("$skip", "12")]) == [])
        #expect(try numbers([QueryPair("$top", "0")]) == [])
        #expect(try numbers([QueryPair("$skip", "\(Int.max)")]) == [])
    }

    @Test("the cap on $top limits the result")
    func cap() throws {
        let query = try ODataParser.parse([(name: "$top", value: "100")], maxTop: 2)
        #expect(Fixtures.numbers(query.apply(to: Fixtures.stored)) == [12, 7])
    }

    @Test("text orders by UTF-8 bytes: upper case before lower case before non-ASCII")
    func senderOrder() throws {
        #expect(try numbers([QueryPair("$orderby", "Sender")]) == [11, 12, 1, 3, 4, 5, 8, 6, 2, 9, 7, 10])
        #expect(try numbers([QueryPair("$orderby", "Sender desc")]) == [10, 7, 9, 2, 6, 8, 5, 3, 4, 1, 12, 11])
    }

    @Test("several order keys: the first that differs decides")
    func orderList() throws {
        #expect(try numbers([QueryPair("$orderby", "UpdateID desc,DateTime")]) == [12, 11, 10, 7, 6, 5, 4, 3, 2, 1, 8, 9])
        #expect(try numbers([QueryPair("$orderby", "DateTime,ID desc")]) == [10, 11, 1, 2, 4, 3, 5, 6, 9, 8, 7, 12])
    }

    @Test("filters select exactly the matching messages")
    func filters() throws {
        #expect(try filtered("Status eq 'Delivered'") == [12, 7, 8, 1])
        #expect(try filtered("not (Status eq 'Delivered')") == [9, 6, 5, 3, 4, 2, 11, 10])
        #expect(try filtered("Status ne 'delivered' and Status ne 'Sent'") == [6, 5, 3, 4, 11, 10])
        #expect(try filtered("Sender eq 'cm'") == [2])
        #expect(try filtered("Sender eq 'O''Reilly'") == [5])
        #expect(try filtered("Sender ge 'Ä'") == [7, 10])
        #expect(try filtered("DateTime eq datetime'2026-11-22T00:00:00'") == [7, 8, 9])
        #expect(try filtered("DateTime gt datetime'2026-11-21T10:15:30.123'") == [12, 7, 8, 9, 6])
        #expect(try filtered("DateTime ge datetime'2026-11-21T11:15:30.123+01:00'") == [12, 7, 8, 9, 6, 5])
        #expect(try filtered("UpdateID eq 42 or ID eq guid'00000001-0000-4000-8000-000000000000'") == [8, 9, 1])
        #expect(try filtered("ID lt '00000003-0000-4000-8000-000000000000'") == [2, 1])
        #expect(try filtered("UpdateID le 6509643552") == [8, 9, 2, 1])
        #expect(try filtered("Sender eq 'nobody'") == [])
    }

    @Test("filter, order and paging combine in OData's order")
    func combined() throws {
        let pairs = [QueryPair("$filter", "Status eq 'Delivered' or Status eq 'Sent'"), QueryPair("$orderby", "Sender"),
                     QueryPair("$skip", "1"), QueryPair("$top", "3")]
        // Matching, by sender: 12 "3161", 1 "CM", 8 "Zeta", 2 "cm", 9 "zeta", 7 "Ärzte"; skip one, take three.
        #expect(try numbers(pairs) == [1, 8, 2])
    }

    @Test("canonically equivalent but differently encoded text does not match, as in SQLite")
    func noNormalisation() throws {
        #expect(try filtered("Sender eq 'A\u{308}rzte'") == [])
        #expect(try filtered("Sender eq '\u{C4}rzte'") == [7])
    }
}
