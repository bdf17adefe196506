import Foundation
import TandemCore
import Testing
@testable import TandemStore

@Suite("Migration 9 (messages: message_type CHECK without IN)")
struct MessageTypeCheckMigrationTests {
    static let insertMessage = """
        INSERT INTO messages (message_id, account_id, sender, body, message_type, created_at)
        VALUES (?, 1, 'Acme', 'hello', ?, 0)
        """

    @Test("rows, row ids, what points at them and the indexes survive; the CHECK still refuses other types; an insert builds no temporary index")
    func rebuildKeepsEverything() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            let old = try Store.open(StoreConfiguration(path: path), migrations: Array(TandemSchema.migrations.prefix(8)))
            try await old.write { db throws(StoreError) in
                try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('A', 'token', 0)")
                for (id, type) in [("m-1", "Default"), ("m-2", "OTP"), ("m-3", "Critical")] {
                    try db.run(Self.insertMessage, [.text(id), .text(type)])
                }
                try db.run("UPDATE messages SET reference = 'ref', idempotency_key = 'k', fallback_for = 'm-1' WHERE id = 2")
                try db.run("""
                    INSERT INTO deliveries (id, message_id, msisdn, state, status, snapshot, created_at, updated_at)
                    VALUES (5, 3, '+31600000001', 'pushing', 'Sent', '{}', 1, 1)
                    """)
                try db.run("INSERT INTO message_spools (message_id, recipients, total) VALUES (1, '+31600000002', 1)")
            }
            let before = try old.read { db throws(StoreError) in try db.query("SELECT * FROM messages ORDER BY id").map(\.values) }
            await old.close()

            let store = try Store.open(StoreConfiguration(path: path))
            #expect(try store.schemaVersion() == newestSchemaVersion)
            try store.read { db throws(StoreError) in
                // Later migrations append columns (13: api, presentation, extra): the rows' older columns are unchanged.
                #expect(try db.query("SELECT * FROM messages ORDER BY id").map { Array($0.values.prefix(before[0].count)) } == before)
                let objects = try db.query("SELECT type || ':' || name FROM sqlite_schema WHERE tbl_name = 'messages'")
                    .map { row throws(StoreError) in try row.get(0, as: String.self) }
                #expect(Set(objects) == ["table:messages", "index:sqlite_autoindex_messages_1", "index:messages_idempotency",
                                         "index:messages_app", "index:messages_account_reference", "index:messages_scg_listing"])
                #expect(try db.query("PRAGMA foreign_key_check").isEmpty)
                #expect(try db.query("PRAGMA integrity_check").map(\.values) == [[.text("ok")]])
                let program = try db.query("EXPLAIN " + Self.insertMessage, [.text("m-4"), .text("OTP")])
                    .map { row throws(StoreError) in try row.get("opcode", as: String.self) }
                #expect(!program.contains("OpenEphemeral"))
            }
            await #expect(throws: StoreError.self) {
                try await store.write { db throws(StoreError) in try db.run(Self.insertMessage, [.text("m-5"), .text("Bulk")]) }
            }
            try await store.write { db throws(StoreError) in
                try db.run(Self.insertMessage, [.text("m-6"), .text("Critical")])
                // Deliveries and spools still point at messages by foreign key.
                #expect(throws: StoreError.self) {
                    try db.run("INSERT INTO deliveries (message_id, msisdn, state, status, created_at, updated_at) VALUES (99, '+3160', 's', 'Sent', 1, 1)")
                }
            }
            await store.close()
        }
    }
}
