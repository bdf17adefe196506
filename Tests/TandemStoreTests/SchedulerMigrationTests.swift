import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore

@Suite("Migration 2 (scheduler persistence)")
struct SchedulerMigrationTests {
    /// A migration-1 database with one row in every table; returns `SELECT *` of each table.
    private static func seedVersion1(at path: String, messageID: GUID) throws -> [String: [Row]] {
        let db = try Connection(path: path)
        try db.migrate([TandemSchema.initial])
        try db.execute("""
            INSERT INTO accounts (name, product_token, created_at) VALUES ('acme', 'token-1', 1);
            INSERT INTO apps (account_id, name, app_key, app_secret, push_credentials, created_at)
                VALUES (1, 'app', 'key-1', 'secret', '{"apns":"x"}', 2);
            INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
                VALUES ('dev-1', 1, '+31600000001', 'iOS', 'push-1', 'PinVerified', 3, 3);
            INSERT INTO messages (message_id, account_id, app_id, idempotency_key, sender, body, reference, message_type,
                                  allowed_channels, validity_until, custom_grouping, dcs, rich_content, created_at)
                VALUES ('\(messageID.text)', 1, 1, 'idem-1', 'Acme', 'hello', 'ref', 'OTP', 'Push,SMS', 99, 'g', 8,
                        '{"media":[]}', 4);
            INSERT INTO deliveries (message_id, msisdn, state, status, channel, final, created_at, updated_at)
                VALUES (1, '+31600000001', 'final', 'Delivered', 'Push', 1, 5, 6);
            INSERT INTO delivery_events (delivery_id, at, kind, detail) VALUES (1, 5, 'routed', 'push');
            INSERT INTO outbox (delivery_id, url, payload, next_attempt_at, created_at)
                VALUES (1, 'https://example.test/hook', '{"s":1}', 7, 7);
            INSERT INTO provider_refs (provider, ref, delivery_id, created_at) VALUES ('apns', 'a-1', 1, 8);
            """)
        var tables: [String: [Row]] = [:]
        for table in ["accounts", "apps", "registrations", "messages", "deliveries", "delivery_events", "outbox", "provider_refs"] {
            tables[table] = try db.query("SELECT * FROM \(table) ORDER BY 1, 2")
        }
        db.close()
        return tables
    }

    @Test("applied on top of a migration-1 database it keeps every row, constraint and foreign key")
    func upgradeKeepsData() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            let messageID = try Fixture.guid(1)
            let before = try Self.seedVersion1(at: path, messageID: messageID)

            let store = try Store.open(StoreConfiguration(path: path), migrations: Array(TandemSchema.migrations.prefix(2)))
            #expect(try store.schemaVersion() == 2)
            for (table, rowsBefore) in before {
                var after = try rows(store, "SELECT * FROM \(table) ORDER BY 1, 2")
                if table == "deliveries" {
                    #expect(after.map { $0["snapshot"] } == [.null])
                    after = after.map { row in Row(columnNames: Array(row.columnNames.dropLast()), values: Array(row.values.dropLast())) }
                }
                #expect(after == rowsBefore, "table \(table)")
            }
            #expect(try rows(store, "PRAGMA foreign_key_check").isEmpty)
            #expect(try rows(store, "PRAGMA integrity_check").map(\.values) == [[.text("ok")]])

            // Enforcement is back on for the writer, and migration 1's constraints survived the rebuild.
            let foreignKey = await #expect(throws: StoreError.self) {
                try await store.write { db throws(StoreError) in
                    try db.run("INSERT INTO messages (message_id, account_id, sender, body, created_at) VALUES ('m2', 42, 's', 'b', 0)")
                }
            }
            #expect(foreignKey?.isForeignKeyViolation == true)
            let unique = await #expect(throws: StoreError.self) {
                try await store.write { db throws(StoreError) in
                    try db.run("INSERT INTO messages (message_id, account_id, idempotency_key, sender, body, created_at) VALUES ('m3', 1, 'idem-1', 's', 'b', 0)")
                }
            }
            #expect(unique?.isUniqueViolation == true)

            // With the later migrations applied on top, the scheduler reuses the gateway's row for the same
            // GUID and loads only what is in flight.
            await store.close()
            let current = try Store.open(StoreConfiguration(path: path))
            #expect(try current.schemaVersion() == newestSchemaVersion)
            let deliveries = SQLiteDeliveryStore(store: current)
            let content = MessageContent(messageID: messageID, sender: "Acme", body: "hello", reference: "ref")
            let record = try Fixture.pushed(to: [Fixture.device(1)], msisdn: Fixture.msisdn(1), content: content)
            let key = try #require(try await deliveries.commit(inserts: [record], changes: []).first)
            #expect(key == DeliveryKey(2))
            #expect(try tableCount(current, "messages") == 1)
            let loaded = try await deliveries.loadInFlight()
            // The loaded content is the gateway's row: its dcs 8 (UCS-2) comes along; its app key is no GUID, so no app.
            let stored = MessageContent(messageID: messageID, sender: "Acme", body: "hello", reference: "ref", forceUCS2: true)
            #expect(loaded.map(\.key) == [key] && loaded.map(\.content) == [stored])
            await current.close()
        }
    }

    @Test("an in-flight delivery written before migration 2 (no snapshot) makes loadInFlight fail with .decoding")
    func legacyInFlightRow() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            _ = try Self.seedVersion1(at: path, messageID: try Fixture.guid(1))
            let store = try Store.open(StoreConfiguration(path: path))
            try await store.write { db throws(StoreError) in try db.run("UPDATE deliveries SET final = 0") }
            let error = await #expect(throws: StoreError.self) { try await SQLiteDeliveryStore(store: store).loadInFlight() }
            guard case .decoding(column: "snapshot", _) = error else {
                Issue.record("expected a snapshot decoding error, got \(String(describing: error))")
                return
            }
            await store.close()
        }
    }

    @Test("the schema relaxes messages for the scheduler, adds the snapshot, and the in-flight scan uses its index")
    func schemaShape() throws {
        let db = try Connection(path: ":memory:")
        try db.migrate(Array(TandemSchema.migrations.prefix(5)))  // migration 6 drops the snapshot's JSON check again
        let notNull = try db.query("SELECT name, \"notnull\" FROM pragma_table_info('messages')")
            .reduce(into: [String: Bool]()) { result, row in result[try row.get(0, as: String.self)] = try row.get(1, as: Bool.self) }
        #expect(notNull["account_id"] == false && notNull["allowed_channels"] == false)
        #expect(notNull["message_id"] == true && notNull["sender"] == true && notNull["body"] == true && notNull["created_at"] == true)
        let strict = try db.query("SELECT name FROM pragma_table_list WHERE strict = 1 AND name IN ('messages', 'deliveries')")
        #expect(strict.count == 2)
        let invalidJSON = #expect(throws: StoreError.self) {
            try db.run("INSERT INTO messages (message_id, sender, body, created_at) VALUES ('m', 's', 'b', 0)")
            try db.run("""
                INSERT INTO deliveries (message_id, msisdn, state, status, snapshot, created_at, updated_at)
                VALUES (1, '+31600000001', 'pushing', 'Sent', 'not json', 0, 0)
                """)
        }
        #expect(invalidJSON?.resultCode == .constraintCheck)
        let plan = try db.query("""
            EXPLAIN QUERY PLAN
            SELECT d.id AS delivery_key, d.msisdn, d.snapshot, m.message_id, m.sender, m.body, m.reference
            FROM deliveries d JOIN messages m ON m.id = d.message_id
            WHERE d.final = 0
            ORDER BY d.id
            """).map { row throws(StoreError) in try row.get("detail", as: String.self) }.joined(separator: " | ")
        #expect(plan.contains("deliveries_in_flight") && !plan.contains("TEMP B-TREE"), "plan: \(plan)")
    }

    @Test("a table-rebuilding migration that leaves a foreign-key violation is rolled back, and enforcement is back on")
    func rebuildChecksForeignKeys() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/db.sqlite"
            let base = [
                Migration(version: 1, name: "tables", sql: """
                    CREATE TABLE parent (id INTEGER PRIMARY KEY, x INTEGER NOT NULL) STRICT;
                    CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent(id)) STRICT;
                    INSERT INTO parent VALUES (1, 1); INSERT INTO child VALUES (1, 1);
                    """),
            ]
            let breaking = base + [Migration(version: 2, name: "drops a parent row", sql: """
                CREATE TABLE parent_new (id INTEGER PRIMARY KEY, x INTEGER) STRICT;
                DROP TABLE parent;
                ALTER TABLE parent_new RENAME TO parent;
                """, rebuildsTables: true)]
            let db = try Connection(path: path)
            try db.migrate(base)
            let error = #expect(throws: StoreError.self) { try db.migrate(breaking) }
            guard case .migration(version: 2, let message) = error else {
                Issue.record("expected a migration error, got \(String(describing: error))")
                return
            }
            #expect(message.contains("foreign-key"), "\(message)")
            #expect(try db.scalar("PRAGMA foreign_keys", as: Int.self) == 1)
            #expect(try db.schemaVersion == 1)
            #expect(try db.scalar("SELECT count(*) FROM parent", as: Int.self) == 1)
            let fine = base + [Migration(version: 2, name: "keeps rows", sql: """
                CREATE TABLE parent_new (id INTEGER PRIMARY KEY, x INTEGER) STRICT;
                INSERT INTO parent_new SELECT id, x FROM parent;
                DROP TABLE parent;
                ALTER TABLE parent_new RENAME TO parent;
                """, rebuildsTables: true)]
            #expect(try db.migrate(fine) == [2])
            #expect(try db.scalar("PRAGMA foreign_keys", as: Int.self) == 1)
            let violation = #expect(throws: StoreError.self) { try db.run("INSERT INTO child VALUES (2, 99)") }
            #expect(violation?.isForeignKeyViolation == true)
            db.close()
        }
    }
}
