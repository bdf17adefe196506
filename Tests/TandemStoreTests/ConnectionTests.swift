import Foundation
import Testing
@testable import TandemStore

@Suite("Connection")
struct ConnectionTests {
    @Test("WAL, foreign keys and synchronous are set on the writer and on readers", arguments: SynchronousMode.allCases)
    func pragmas(sync: SynchronousMode) async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/p.sqlite", synchronous: sync))
            let pragmas: @Sendable (Connection) throws(StoreError) -> [String] = { db throws(StoreError) in
                [
                    try db.scalar("PRAGMA journal_mode", as: String.self) ?? "",
                    String(try db.scalar("PRAGMA foreign_keys", as: Int64.self) ?? -1),
                    String(try db.scalar("PRAGMA synchronous", as: Int64.self) ?? -1),
                ]
            }
            let expected = ["wal", "1", String(sync.pragmaValue)]
            #expect(try await store.write(pragmas) == expected)
            #expect(try store.read(pragmas) == expected)
            await store.close()
        }
    }

    @Test("the statement cache prepares a repeated statement once")
    func statementCache() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        let before = db.statementCacheStatistics
        for value in 0..<100 {
            try db.run("INSERT INTO t (x) VALUES (?)", [.integer(Int64(value))])
        }
        let after = db.statementCacheStatistics
        #expect(after.prepares - before.prepares == 1)
        #expect(after.hits - before.hits == 99)
        #expect(try db.scalar("SELECT sum(x) FROM t", as: Int.self) == 4950)
    }

    @Test("bound text and blobs arrive intact through one cached statement, whatever their sizes from use to use")
    func boundValuesRoundTrip() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (n INTEGER, a TEXT, b BLOB, c TEXT, d TEXT)")
        var random = SystemRandomNumberGenerator()
        // Empty, small (stored inside a Swift string), multi-byte and far past the statement's first buffer.
        let texts = ["", "x", "015 bytes long!", "héllo wörld ☎️ €", String(repeating: "0123456789", count: 200),
                     String(repeating: "ü", count: 3_000)]
        var expected: [[SQLValue]] = []
        for n in 0..<60 {
            let blobCount = [0, 1, 300, 70_000][n % 4]
            let row: [SQLValue] = [
                .integer(Int64(n)), .text(texts[n % texts.count]),
                .blob((0..<blobCount).map { _ in UInt8.random(in: 0...255, using: &random) }),
                .text(texts[(n * 7 + 3) % texts.count]), n % 5 == 0 ? .null : .text(String(n)),
            ]
            try db.run("INSERT INTO t (n, a, b, c, d) VALUES (?, ?, ?, ?, ?)", row)
            expected.append(row)
        }
        #expect(db.statementCacheStatistics.prepares == 1)
        let stored = try db.query("SELECT n, a, b, c, d FROM t ORDER BY n").map(\.values)
        #expect(stored == expected)
        // An empty text is '' (not NULL), and text bound as a key finds its row.
        #expect(try db.scalar("SELECT count(*) FROM t WHERE a = ? AND a IS NOT NULL", [.text("")], as: Int.self) == 10)
        #expect(try db.scalar("SELECT n FROM t WHERE a = ? AND c = ? LIMIT 1", [.text(texts[4]), .text(texts[1])], as: Int.self) == 4)
    }

    @Test("the least recently used statement is evicted beyond the cache capacity")
    func cacheEviction() throws {
        let db = try Connection(path: ":memory:", options: ConnectionOptions(statementCacheCapacity: 2))
        for sql in ["SELECT 1", "SELECT 2", "SELECT 1", "SELECT 3", "SELECT 1", "SELECT 2"] {
            _ = try db.query(sql)
        }
        let stats = db.statementCacheStatistics
        #expect(stats.cached == 2)
        #expect(stats.prepares == 4) // 1, 2, 3 (evicts 2), 2 again (evicts 3)
        #expect(stats.hits == 2)
    }

    @Test("running the same SQL inside its own cursor uses a second statement")
    func reentrantStatement() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);")
        var pairs = 0
        try db.forEach("SELECT x FROM t") { _ throws(StoreError) in
            pairs += try db.query("SELECT x FROM t").count
        }
        #expect(pairs == 9)
    }

    @Test("values round-trip with their storage class")
    func valuesRoundTrip() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE v (a ANY) STRICT")
        let values: [SQLValue] = [.null, .integer(Int64.min), .integer(42), .real(2.5), .text(""), .text("héllo ✓ \u{0}x"),
                                  .blob([]), .blob([0, 1, 255])]
        for value in values {
            try db.run("INSERT INTO v (a) VALUES (?)", [value])
        }
        let read = try db.query("SELECT a FROM v ORDER BY rowid").map { $0[0] }
        #expect(read == values)
    }

    @Test("row accessors read by index and by name, strictly typed")
    func rowAccessors() throws {
        let db = try Connection(path: ":memory:")
        let row = try #require(try db.queryFirst("SELECT 7 AS id, 'x' AS Name, NULL AS maybe, 1.5 AS ratio"))
        #expect(try row.get(0, as: Int64.self) == 7)
        #expect(try row.get("id", as: Int.self) == 7)
        #expect(try row.get("name", as: String.self) == "x")
        #expect(try row.get("maybe", as: String?.self) == nil)
        #expect(try row.get("ratio", as: Double.self) == 1.5)
        #expect(row["missing"] == nil)
        #expect(throws: StoreError.self) { try row.get("id", as: String.self) }
        #expect(throws: StoreError.self) { try row.get("maybe", as: Int64.self) }
        #expect(throws: StoreError.self) { try row.get("nope", as: Int64.self) }
    }

    @Test("constraint violations are classified so callers can map them")
    func constraintClassification() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Connection(path: dir + "/c.sqlite")
            try db.migrate(TandemSchema.migrations)
            try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('a', 't', 0)")

            let unique = #expect(throws: StoreError.self) {
                try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('b', 't', 0)")
            }
            #expect(unique?.isUniqueViolation == true)

            let foreignKey = #expect(throws: StoreError.self) {
                try db.run("INSERT INTO apps (account_id, name, app_key, app_secret, created_at) VALUES (999, 'n', 'k', 's', 0)")
            }
            #expect(foreignKey?.isForeignKeyViolation == true)

            let check = #expect(throws: StoreError.self) {
                try db.run("INSERT INTO apps (account_id, name, app_key, app_secret, default_message_type, created_at) VALUES (1, 'n', 'k', 's', 'Spam', 0)")
            }
            #expect(check?.resultCode == .constraintCheck)

            try db.run("INSERT INTO apps (account_id, name, app_key, app_secret, created_at) VALUES (1, 'n', 'k', 's', 0)")
            try db.run("INSERT INTO messages (message_id, account_id, sender, body, allowed_channels, created_at) VALUES ('m', 1, 's', 'b', 'SMS', 0)")
            try db.run("INSERT INTO deliveries (message_id, msisdn, state, status, created_at, updated_at) VALUES (1, '+31', 'Accepted', 'Accepted', 0, 0)")
            try db.run("INSERT INTO delivery_events (delivery_id, at, kind) VALUES (1, 0, 'accepted')")
            let appendOnly = #expect(throws: StoreError.self) { try db.run("UPDATE delivery_events SET kind = 'x'") }
            #expect(appendOnly?.resultCode == .constraintTrigger)
        }
    }

    @Test("the outbox's due query, the app inbox's query by number and the BWMI live count use their partial indexes")
    func partialIndexes() throws {
        let db = try Connection(path: ":memory:")
        try db.migrate(TandemSchema.migrations)
        let outbox = try db.query("EXPLAIN QUERY PLAN SELECT id FROM outbox WHERE delivered_at IS NULL AND abandoned_at IS NULL AND next_attempt_at <= ?", [0])
            .map { row throws(StoreError) in try row.get("detail", as: String.self) }.joined(separator: " ")
        #expect(outbox.contains("outbox_due"), "plan: \(outbox)")
        let inbox = try db.query("EXPLAIN QUERY PLAN SELECT id FROM deliveries WHERE msisdn = ? AND pushed = 1", ["+31612345678"])
            .map { row throws(StoreError) in try row.get("detail", as: String.self) }.joined(separator: " ")
        #expect(inbox.contains("deliveries_inbox"), "plan: \(inbox)")
        let badge = try db.query("EXPLAIN QUERY PLAN " + Store.liveBWMICountSQL, [.text("d"), .integer(0)])
            .map { row throws(StoreError) in try row.get("detail", as: String.self) }.joined(separator: " ")
        #expect(badge.contains("INDEX bwmi_notifications_device (registration_id=? AND expires_at>?)"), "plan: \(badge)")
        let live = try db.query("EXPLAIN QUERY PLAN " + Store.liveBWMISQL, [.text("d"), .integer(0)])
            .map { row throws(StoreError) in try row.get("detail", as: String.self) }.joined(separator: " ")
        #expect(live.contains("INDEX bwmi_notifications_device (registration_id=? AND expires_at>?)"), "plan: \(live)")
    }

    @Test("run rejects several statements; execute runs scripts")
    func multiStatement() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);")
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int.self) == 2)
        #expect(throws: StoreError.self) { try db.run("INSERT INTO t VALUES (3); INSERT INTO t VALUES (4)") }
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int.self) == 2)
        #expect(throws: StoreError.self) { try db.run("INSERT INTO t VALUES (?)", []) }
    }

    @Test("a closed connection throws .closed")
    func closedConnection() throws {
        let db = try Connection(path: ":memory:")
        db.close()
        db.close()
        #expect(throws: StoreError.closed) { try db.run("SELECT 1") }
        #expect(throws: StoreError.closed) { try db.execute("SELECT 1") }
    }

    @Test("a file that is not a database fails in configuration with .open, closing the handle once")
    func notADatabase() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/garbage.sqlite"
            try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
            for _ in 0..<3 {  // the throwing init runs deinit too; a double close would crash here
                let error = #expect(throws: StoreError.self) { _ = try Connection(path: path) }
                guard case .open(_, let code, _) = error else {
                    Issue.record("expected .open, got \(String(describing: error))")
                    return
                }
                #expect(code.primaryResultCode == .notADatabase)
            }
            #expect(throws: StoreError.self) { _ = try Store.open(StoreConfiguration(path: path)) }
        }
    }

    @Test("opening a missing file read-only fails with .open")
    func openFailure() async throws {
        try await withTemporaryDirectory { dir in
            let error = #expect(throws: StoreError.self) {
                _ = try Connection(path: dir + "/missing.sqlite", options: ConnectionOptions(readOnly: true))
            }
            guard case .open(let path, _, _) = error else {
                Issue.record("expected .open, got \(String(describing: error))")
                return
            }
            #expect(path.hasSuffix("missing.sqlite"))
        }
    }
}
