import Foundation
import TandemCore
import Testing
@testable import TandemStore

@Suite("Migration 6 (deliveries without the snapshot JSON check)")
struct SnapshotCheckMigrationTests {
    @Test("rows, row ids, the events that point at them and the indexes survive the rebuild; the CHECK is gone")
    func rebuildKeepsEverything() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            let old = try Store.open(StoreConfiguration(path: path), migrations: Array(TandemSchema.migrations.prefix(5)))
            try await old.write { db throws(StoreError) in
                try db.run("INSERT INTO messages (message_id, sender, body, created_at) VALUES ('m-1', 'Acme', 'hello', 0)")
                try db.run("""
                    INSERT INTO deliveries (id, message_id, msisdn, state, status, final, snapshot, pushed, push_withdrawn,
                                            push_deadline, created_at, updated_at)
                    VALUES (7, 1, '+31600000001', 'pushing', 'Sent', 0, '{"plan":{"targets":[]}}', 1, 0, 5000, 1, 2),
                           (9, 1, '+31600000002', 'final', 'Delivered', 1, '{"resolution":"deliveredBySMS"}', 0, 0, NULL, 3, 4)
                    """)
                try db.run("INSERT INTO delivery_events (delivery_id, at, kind) VALUES (7, 1, 'routed'), (9, 3, 'routed')")
                try db.run("INSERT INTO provider_refs (provider, ref, delivery_id, created_at) VALUES ('smpp', 'r-1', 9, 3)")
            }
            await old.close()

            let store = try Store.open(StoreConfiguration(path: path))
            #expect(try store.schemaVersion() == newestSchemaVersion)
            let rows = try store.read { db throws(StoreError) in
                try db.query("""
                    SELECT id, message_id, msisdn, state, status, final, snapshot, pushed, push_withdrawn, push_deadline,
                           created_at, updated_at FROM deliveries ORDER BY id
                    """).map(\.values)
            }
            #expect(rows == [
                [.integer(7), .integer(1), .text("+31600000001"), .text("pushing"), .text("Sent"), .integer(0),
                 .text(#"{"plan":{"targets":[]}}"#), .integer(1), .integer(0), .integer(5000), .integer(1), .integer(2)],
                [.integer(9), .integer(1), .text("+31600000002"), .text("final"), .text("Delivered"), .integer(1),
                 .text(#"{"resolution":"deliveredBySMS"}"#), .integer(0), .integer(0), .null, .integer(3), .integer(4)],
            ])
            let schema = try store.read { db throws(StoreError) in
                try db.query("SELECT type || ':' || name || ':' || coalesce(sql, '') FROM sqlite_schema WHERE tbl_name = 'deliveries'")
                    .map { row throws(StoreError) in try row.get(0, as: String.self) }
            }
            #expect(Set(schema.map { $0.split(separator: ":").prefix(2).joined(separator: ":") })
                    == ["table:deliveries", "index:deliveries_message", "index:deliveries_in_flight", "index:deliveries_inbox",
                        "index:deliveries_msisdn_message"])  // the last from migration 20
            #expect(!schema.contains { $0.contains("json_valid") })
            #expect(schema.contains { $0.hasPrefix("table:deliveries:") && $0.contains("STRICT") })
            let checks = try store.read { db throws(StoreError) in
                (try db.query("PRAGMA foreign_key_check").count, try db.query("PRAGMA integrity_check").map(\.values))
            }
            #expect(checks.0 == 0)
            #expect(checks.1 == [[.text("ok")]])
            // Foreign keys still bind events and provider references to the rebuilt table.
            await #expect(throws: StoreError.self) {
                try await store.write { db throws(StoreError) in
                    try db.run("INSERT INTO delivery_events (delivery_id, at, kind) VALUES (8, 5, 'routed')")
                }
            }
            // The other CHECKs are kept.
            await #expect(throws: StoreError.self) {
                try await store.write { db throws(StoreError) in try db.run("UPDATE deliveries SET final = 2 WHERE id = 7") }
            }
            await store.close()
        }
    }
}
