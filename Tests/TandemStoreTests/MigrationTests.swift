import Testing
@testable import TandemStore

@Suite("Migrations")
struct MigrationTests {
    @Test("opening twice applies nothing the second time and keeps the data")
    func reopenIsNoOp() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            let first = try Store.open(StoreConfiguration(path: path))
            #expect(try first.schemaVersion() == newestSchemaVersion)
            try await first.write { db throws(StoreError) in
                try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('acme', 'tok-1', 1)")
            }
            await first.close()

            let connection = try Connection(path: path)
            #expect(try connection.migrate(TandemSchema.migrations) == [])
            connection.close()

            let second = try Store.open(StoreConfiguration(path: path))
            #expect(try second.schemaVersion() == newestSchemaVersion)
            let names = try second.read { db throws(StoreError) in
                try db.query("SELECT name FROM accounts").map { row throws(StoreError) in try row.get(0, as: String.self) }
            }
            #expect(names == ["acme"])
            await second.close()
        }
    }

    @Test("a database with a newer schema version than the code knows is refused")
    func newerVersionRefused() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            let connection = try Connection(path: path)
            try connection.execute("PRAGMA user_version = 99")
            connection.close()
            #expect(throws: StoreError.migration(
                version: 99, message: "database schema version 99 is newer than this build supports (\(newestSchemaVersion))")) {
                _ = try Store.open(StoreConfiguration(path: path))
            }
        }
    }

    @Test("the schema has every Tandem table and index, with STRICT tables")
    func schemaComplete() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/tandem.sqlite"))
            let objects = try store.read { db throws(StoreError) in
                try db.query("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")
                    .map { row throws(StoreError) in "\(try row.get(0, as: String.self)):\(try row.get(1, as: String.self))" }
            }
            let tables = ["accounts", "apps", "registrations", "messages", "deliveries", "delivery_events", "outbox", "provider_refs",
                          "idempotency_keys", "message_spools", "policies", "sms_prefix_blocks", "scg_tokens", "app_users",
                          "bwmi_devices", "bwmi_apps", "bwmi_notifications"]
                + ["mymsp_users", "mymsp_recipients", "mymsp_groups", "mymsp_group_members", "mymsp_sequence", "mymsp_events"]
            for table in tables {
                #expect(objects.contains("table:\(table)"), "missing table \(table)")
            }
            for index in ["registrations_app_msisdn", "registrations_app_push_token", "messages_idempotency",
                          "deliveries_inbox", "deliveries_in_flight", "outbox_due", "messages_account_reference", "idempotency_keys_created",
                          "sms_prefix_blocks_app", "sms_prefix_blocks_active", "scg_tokens_account", "messages_scg_listing",
                          "deliveries_msisdn_message",
                          "app_users_app_user", "registrations_owner_user",
                          "bwmi_devices_phone", "bwmi_devices_email", "bwmi_notifications_device"] {
                #expect(objects.contains("index:\(index)"), "missing index \(index)")
            }
            for dropped in ["deliveries_msisdn", "deliveries_pending_push", "deliveries_pending_read", "deliveries_pending_expiry",
                            "messages_account_created", "provider_refs_delivery", "bwmi_notifications_live"] {
                #expect(!objects.contains("index:\(dropped)"), "index \(dropped) was dropped by migration 5, 8 or 28")
            }
            let strict = try store.read { db throws(StoreError) in
                try db.query("SELECT name FROM pragma_table_list WHERE strict = 1 AND schema = 'main'")
                    .map { row throws(StoreError) in try row.get(0, as: String.self) }
            }
            #expect(Set(strict) == Set(tables))
            await store.close()
        }
    }

    @Test("a failing migration rolls back alone; the version stays at the last good one")
    func failingMigrationRollsBack() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/db.sqlite"
            let migrations = [
                Migration(version: 1, name: "good", sql: "CREATE TABLE a (x INTEGER) STRICT;"),
                Migration(version: 2, name: "bad", sql: "CREATE TABLE b (x INTEGER) STRICT; INSERT INTO nowhere VALUES (1);"),
            ]
            let error = #expect(throws: StoreError.self) { _ = try Store.open(StoreConfiguration(path: path), migrations: migrations) }
            guard case .migration(let version, _) = error else {
                Issue.record("expected a migration error, got \(String(describing: error))")
                return
            }
            #expect(version == 2)
            let connection = try Connection(path: path)
            #expect(try connection.schemaVersion == 1)
            #expect(try connection.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'b'", as: Int.self) == 0)
        }
    }

    @Test("migration versions must be strictly increasing")
    func versionsMustIncrease() throws {
        let connection = try Connection(path: ":memory:")
        let list = [Migration(version: 2, name: "x", sql: "SELECT 1"), Migration(version: 2, name: "y", sql: "SELECT 1")]
        let error = #expect(throws: StoreError.self) { try connection.migrate(list) }
        guard case .migration(version: 2, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }
}
