import Foundation
import Testing
import TandemTestSupport
import TandemStore
@testable import TandemPostgres

@Suite("PostgreSQL schema")
struct PGSchemaTests {
    private func database() async throws -> PGConnection {
        try PGConnection(try await PostgresCluster.shared().freshDatabase("s"))
    }

    /// Table → columns of a fresh SQLite database, through every migration.
    private func sqliteTables() throws -> [String: Set<String>] {
        let path = NSTemporaryDirectory() + "schema-" + UUID().uuidString + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Connection(path: path)
        try db.migrate(TandemSchema.migrations)
        var tables: [String: Set<String>] = [:]
        for row in try db.query("""
            SELECT m.name AS tbl, p.name AS col FROM sqlite_schema m, pragma_table_info(m.name) p
            WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
            """) {
            tables[try row.get("tbl", as: String.self), default: []].insert(try row.get("col", as: String.self))
        }
        db.close()
        return tables
    }

    @Test("every table and column of a fresh SQLite database exists on PostgreSQL, and besides them only the cluster's tables")
    func sideBySide() async throws {
        let db = try await database()
        #expect(try PGSchema.migrate(db) == PGSchema.migrations.map(\.version))
        var tables: [String: Set<String>] = [:]
        for row in try db.execute("""
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name <> 'tandem_schema'
            """).rows {
            tables[row[0]!, default: []].insert(row[1]!)
        }
        let sqlite = try sqliteTables()
        #expect(Set(tables.keys) == Set(sqlite.keys).union(PGSchema.clusterTables))
        for (table, columns) in sqlite {
            #expect(tables[table] == columns, "columns of \(table)")
        }
    }

    @Test("migrating twice applies nothing; a newer schema is refused; the triggers do what SQLite's do")
    func versionsAndTriggers() async throws {
        let db = try await database()
        #expect(try PGSchema.migrate(db) == PGSchema.migrations.map(\.version))
        #expect(try PGSchema.migrate(db) == [])
        #expect(try db.execute("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'deliveries'").scalar
                == "fillfactor=50")
        // The append-only event log and the myMSP triggers.
        try db.execute("INSERT INTO accounts (name, product_token, created_at) VALUES ('a', 't', 1)")
        try db.execute("INSERT INTO apps (account_id, name, app_key, app_secret, created_at) VALUES (1, 'p', 'k', 's', 1)")
        try db.execute("INSERT INTO messages (message_id, account_id, sender, body, created_at) VALUES ('m', 1, 's', 'b', 1)")
        try db.execute("INSERT INTO deliveries (message_id, msisdn, state, status, created_at, updated_at) VALUES (1, '+31', 'x', 'y', 1, 1)")
        try db.execute("INSERT INTO delivery_events (delivery_id, at, kind) VALUES (1, 1, 'k')")
        #expect(throws: PGError.self) { try db.execute("UPDATE delivery_events SET kind = 'changed'") }
        try db.execute("""
            INSERT INTO mymsp_users (app_id, name, password_salt, password_hash, event_url, created_at, updated_at)
            VALUES (1, 'u', 's', 'h', 'http://127.0.0.1:1/events', 1, 1)
            """)
        try db.execute("""
            INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
            VALUES ('d', 1, 'Android', 'tok', 'PinVerified', 'mymsp', 1, 1)
            """)
        #expect(try db.execute("INSERT INTO mymsp_recipients (user_id, registration_id, spid, created_at, updated_at) VALUES (1, 1, 'fcm', 1, 1) RETURNING recipient_id").scalar == "2000001")
        try db.execute("UPDATE registrations SET status = 'Invalid', updated_at = 5 WHERE id = 1")
        #expect(try db.execute("SELECT active FROM mymsp_recipients").scalar == "f")
        #expect(try db.execute("SELECT msgno, action, subject FROM mymsp_events").rows == [["1", "ACTION_UNSUB_ALL", "unsub [2000001]"]])
        let payload = try db.execute("SELECT payload FROM outbox WHERE kind = 'mymspEvent'").scalar ?? ""
        let event = try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
        #expect(event?["msgNo"] as? Int == 1 && event?["initialId"] as? String == "ACTION_UNSUB_ALL" && event?["creatorName"] as? String == "u")

        try db.execute("INSERT INTO tandem_schema (version) VALUES ($1)", [String(PGSchema.newestVersion + 1)])
        #expect(throws: PGError.notApplied("the database's schema version \(PGSchema.newestVersion + 1) is newer than this build supports (\(PGSchema.newestVersion))")) {
            try PGSchema.migrate(db)
        }
    }

    @Test("references checked per statement (version 6): a row naming no delivery or message fails its statement with 23503; deliveries and messages are never deleted nor re-keyed")
    func referencesPerStatement() async throws {
        let db = try await database()
        try PGSchema.migrate(db)
        func state(_ sql: String) -> String? {
            do {
                try db.execute(sql)
                return nil
            } catch {
                if case .server(let state, _, _) = error { return state }
                return "\(error)"
            }
        }
        try db.execute("INSERT INTO accounts (name, product_token, created_at) VALUES ('a', 't', 1)")
        try db.execute("INSERT INTO messages (message_id, account_id, sender, body, created_at) VALUES ('m', 1, 's', 'b', 1)")
        // A statement with one bad row among good ones stores none of them.
        #expect(state("""
            INSERT INTO deliveries (message_id, msisdn, state, status, created_at, updated_at)
            VALUES (1, '+31', 'x', 'y', 1, 1), (2, '+32', 'x', 'y', 1, 1)
            """) == "23503")
        #expect(try db.execute("SELECT count(*) FROM deliveries").scalar == "0")
        try db.execute("INSERT INTO deliveries (id, message_id, msisdn, state, status, created_at, updated_at) VALUES (1, 1, '+31', 'x', 'y', 1, 1)")
        #expect(state("INSERT INTO delivery_events (delivery_id, at, kind) VALUES (1, 1, 'k'), (7, 1, 'k')") == "23503")
        #expect(state("INSERT INTO delivery_events (delivery_id, at, kind) SELECT 1, 1, 'k' FROM generate_series(1, 300)") == nil)
        #expect(state("INSERT INTO provider_refs (provider, ref, delivery_id, created_at) VALUES ('smpp', 'a', 7, 1)") == "23503")
        #expect(state("INSERT INTO provider_refs (provider, ref, delivery_id, created_at) VALUES ('smpp', 'a', 1, 1)") == nil)
        // An upsert moving an SMS id to another delivery is checked too.
        #expect(state("""
            INSERT INTO provider_refs (provider, ref, delivery_id, created_at) VALUES ('smpp', 'a', 8, 2)
            ON CONFLICT (provider, ref) DO UPDATE SET delivery_id = excluded.delivery_id
            """) == "23503")
        #expect(state("UPDATE provider_refs SET delivery_id = 9") == "23503")
        #expect(try db.execute("SELECT count(*), min(delivery_id) FROM provider_refs").rows == [["1", "1"]])
        #expect(try db.execute("SELECT count(*) FROM delivery_events").scalar == "300")
        // What the foreign keys also guarded cannot happen: parents are never removed or re-keyed.
        for refused in ["DELETE FROM deliveries", "TRUNCATE deliveries CASCADE", "UPDATE deliveries SET id = 5",
                        "UPDATE deliveries SET message_id = 1", "DELETE FROM messages", "TRUNCATE messages CASCADE",
                        "UPDATE messages SET id = 5"] {
            #expect(state(refused) == "23001", "\(refused)")
        }
        // Their other columns change as before.
        #expect(state("UPDATE deliveries SET state = 'z', final = true") == nil)
        #expect(state("UPDATE messages SET hidden = true") == nil)
    }
}
