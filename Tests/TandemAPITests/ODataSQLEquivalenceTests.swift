import Testing
@testable import TandemAPI
import TandemStore
import TandemCore

@Suite("the SQL translation selects what the evaluator selects, in the same order")
struct SQLEquivalenceTests {
    /// `sender` is declared NOCASE on purpose: the translation's `COLLATE BINARY` must override it.
    /// `engine_status` holds engine statuses (one `Read`); the Status column is an expression mapping it.
    static let schema = """
        CREATE TABLE app_messages (
            row INTEGER PRIMARY KEY,
            message_id TEXT NOT NULL,
            update_id INTEGER NOT NULL,
            msisdn TEXT NOT NULL,
            sender TEXT NOT NULL COLLATE NOCASE,
            body TEXT,
            created_at INTEGER NOT NULL,
            engine_status TEXT NOT NULL
        ) STRICT
        """

    static let columns = ODataSQLColumns(
        id: "message_id", updateID: "update_id", sender: "sender", dateTime: "created_at",
        status: "CASE engine_status WHEN 'Read' THEN 'Delivered' ELSE engine_status END")

    static func database() throws -> SQLiteTestDatabase {
        let database = try SQLiteTestDatabase()
        try database.execute(schema)
        for (offset, message) in Fixtures.stored.enumerated() {
            // Stored in an order unrelated to any sort key, to catch a missing ORDER BY.
            let engineStatus = offset == 7 ? "Read" : message.status.wireName
            try database.execute("INSERT INTO app_messages VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
                .integer(Int64((offset * 7) % 12)), .text(message.id.text), .integer(message.updateID.rawValue),
                .text(message.recipient.e164), .text(message.sender), message.body.map { .text($0) } ?? .text(""),
                .integer(message.dateTime.milliseconds), .text(engineStatus),
            ])
        }
        return database
    }

    static func sqlIDs(_ query: ODataQuery, in database: SQLiteTestDatabase) throws -> [String] {
        let fragment = ODataSQL.translate(query, columns: columns)
        let (sql, bindings) = fragment.statement(selecting: "message_id", from: "app_messages",
                                                 where: "msisdn = ?", bindings: [.text(Fixtures.recipient.e164)])
        return try database.query(sql, bindings).map { $0[0] ?? "NULL" }
    }

    static func evaluatorIDs(_ query: ODataQuery) -> [String] {
        query.apply(to: Fixtures.stored).map(\.id.text)
    }

    /// Filters written against the fixture data: ties, case variants, non-ASCII, the `Read` row.
    static let dataFilters = [
        "Sender eq 'cm'", "Sender eq 'CM'", "Sender gt 'Z'", "Sender lt 'a'", "Sender ge 'Ä'", "Sender le ''",
        "Sender ne 'MyApp'", "Sender eq 'A\u{308}rzte'", "Sender eq 'O''Reilly'", "Sender eq 'a+b'", "Sender gt '😀'",
        "DateTime eq datetime'2026-11-22T00:00:00'", "DateTime ge datetime'2026-11-21T10:00:00Z'",
        "DateTime lt datetime'2026-11-21T10:15:30.123'", "DateTime le datetime'2026-11-21T10:15:30.123'",
        "DateTime gt datetime'2026-11-21T11:15:30.123+01:00'",
        "UpdateID eq 42", "UpdateID ne 42", "UpdateID gt 6509643555", "42 ge UpdateID",
        "Status eq 'Delivered'", "Status ne 'delivered'", "not (Status eq 'Sent' or Status eq 'Accepted')",
        "ID eq guid'00000005-0000-4000-8000-000000000000'", "ID gt '00000009-0000-4000-8000-000000000000'",
        "ID le guid'00000003-0000-4000-8000-000000000000' or UpdateID eq 42",
        "Status eq 'Delivered' and DateTime ge datetime'2026-11-22T00:00:00' and not (Sender eq 'Zeta')",
        "(Sender eq 'MyApp' or Sender eq 'zeta') and (Status eq 'Sent' or Status eq 'Failed')",
        "not not (UpdateID lt 6509643555)",
    ]

    static let pagings: [(orderBy: [ODataOrder], skip: Int, top: Int?)] = [
        ([], 0, nil),
        ([.ascending(.sender)], 2, 3),
        ([.descending(.updateID), .ascending(.dateTime)], 0, 5),
        ([.descending(.id)], 1, nil),
        ([.ascending(.dateTime)], 0, 0),
        ([.descending(.sender), .descending(.dateTime)], 100, 5),
    ]

    @Test("every filter of the parser table and of the data table, under six orderings and pagings")
    func tableFiltersAgree() throws {
        let database = try Self.database()
        var filters = validCases.compactMap(\.expected.filter)
        for text in Self.dataFilters {
            filters.append(try #require(try parse([QueryPair("$filter", text)]).filter))
        }
        var sizes: Set<Int> = []
        for filter in filters {
            for paging in Self.pagings {
                let query = ODataQuery(top: paging.top, skip: paging.skip, orderBy: paging.orderBy, filter: filter)
                let expected = Self.evaluatorIDs(query)
                #expect(try Self.sqlIDs(query, in: database) == expected, "\(filter) \(paging)")
                if paging.skip == 0, paging.top == nil { sizes.insert(expected.count) }
            }
        }
        // The filters are not vacuous: they select many different numbers of messages.
        #expect(sizes.count >= 8)
        #expect(sizes.contains(0) && sizes.contains(Fixtures.stored.count))
    }

    @Test("500 random filters with random orderings agree")
    func randomFiltersAgree() throws {
        let database = try Self.database()
        var generator = SplitMix64(seed: 0x0DA7A)
        for _ in 0..<500 {
            let filter = Self.randomExpression(depth: 3, using: &generator)
            let keys = ODataSortField.allCases.shuffled(using: &generator).prefix(Int(generator.next() % 3))
            let orderBy = keys.map { ODataOrder($0, generator.next() % 2 == 0 ? .ascending : .descending) }
            let top: Int? = generator.next() % 3 == 0 ? nil : Int(generator.next() % 6)
            let query = ODataQuery(top: top, skip: Int(generator.next() % 4), orderBy: orderBy, filter: filter)
            #expect(try Self.sqlIDs(query, in: database) == Self.evaluatorIDs(query), "\(query)")
        }
    }

    @Test("user input only ever travels as a binding")
    func noInterpolation() throws {
        let hostile = "x' OR 1=1 --"
        let query = try parse([QueryPair("$filter", "Sender eq 'x'' OR 1=1 --' or UpdateID eq 7")])
        let fragment = ODataSQL.translate(query, columns: Self.columns)
        #expect(fragment.whereClause == "(sender = ? COLLATE BINARY OR update_id = ?)")
        #expect(fragment.bindings == [.text(hostile), .integer(7)])
        #expect(try Self.sqlIDs(query, in: Self.database()).isEmpty)
    }

    @Test("the translation has the documented shape")
    func shape() throws {
        let query = try parse([
            QueryPair("$filter", "not (Status eq 'Sent') and DateTime ge datetime'1970-01-01T00:00:01'"),
            QueryPair("$orderby", "Sender desc"), QueryPair("$top", "5"), QueryPair("$skip", "2"),
        ])
        let fragment = ODataSQL.translate(query, columns: Self.columns)
        #expect(fragment.whereClause == "((NOT \(Self.columns.status) = ? COLLATE BINARY) AND created_at >= ?)")
        #expect(fragment.orderBy == "sender COLLATE BINARY DESC, message_id COLLATE BINARY ASC")
        #expect(fragment.limit == 5 && fragment.offset == 2)
        #expect(fragment.bindings == [.text("Sent"), .integer(1_000)])
        let (sql, bindings) = ODataSQL.translate(ODataQuery(), columns: Self.columns).statement(selecting: "*", from: "t")
        #expect(sql == "SELECT * FROM t ORDER BY created_at DESC, message_id COLLATE BINARY ASC LIMIT ? OFFSET ?")
        #expect(bindings == [.integer(-1), .integer(0)])
    }

    // MARK: - Random filters

    /// Includes `A\u{308}rzte`, canonically equivalent to the stored `Ärzte` but different bytes.
    private static let senders = ["CM", "cm", "MyApp", "Zeta", "zeta", "Ärzte", "A\u{308}rzte", "", "a+b", "O'Reilly", "N", "😀"]

    static func randomExpression(depth: Int, using generator: inout SplitMix64) -> ODataExpression {
        let choice = depth == 0 ? 0 : generator.next() % 5
        switch choice {
        case 0, 1: return .comparison(randomComparison(using: &generator))
        case 2: return .and(randomExpression(depth: depth - 1, using: &generator),
                            randomExpression(depth: depth - 1, using: &generator))
        case 3: return .or(randomExpression(depth: depth - 1, using: &generator),
                           randomExpression(depth: depth - 1, using: &generator))
        default: return .not(randomExpression(depth: depth - 1, using: &generator))
        }
    }

    static func randomComparison(using generator: inout SplitMix64) -> ODataComparison {
        let op = ODataOperator.allCases[Int(generator.next() % 6)]
        let stored = Fixtures.stored[Int(generator.next() % UInt64(Fixtures.stored.count))]
        switch generator.next() % 5 {
        case 0: return .id(op, stored.id)
        case 1: return .updateID(op, stored.updateID.rawValue + Int64(generator.next() % 3) - 1)
        case 2: return .sender(op, senders[Int(generator.next() % UInt64(senders.count))])
        case 3: return .dateTime(op, Timestamp(milliseconds: stored.dateTime.milliseconds + Int64(generator.next() % 3) - 1))
        default:
            return .status(generator.next() % 2 == 0 ? .eq : .ne,
                           AppMessageStatus.allCases[Int(generator.next() % 6)])
        }
    }
}
