import Foundation
import TandemCore
import Testing
@testable import TandemStore
import TandemTestSupport

/// Opens a store with Tandem's schema at `dir/tandem.sqlite`, with one account whose webhook is
/// ``Fixture/webhookURL``. A test-only trigger files every message the scheduler writes without an
/// account (these tests commit deliveries without the gateway's message records) under that account, so
/// final reports are queued in the outbox as they are for a gateway message.
func openDeliveryStore(_ dir: String) async throws -> SQLiteDeliveryStore {
    let store = try Store.open(StoreConfiguration(path: dir + "/tandem.sqlite"))
    try await store.write { (db: Connection) throws(StoreError) in
        if try db.scalar("SELECT count(*) FROM accounts", as: Int64.self) == 0 {
            try db.run("""
                INSERT INTO accounts (name, product_token, created_at, webhook_url)
                VALUES ('fixture', '00000000-0000-4000-8000-00000000acc1', 0, ?)
                """, [.text(Fixture.webhookURL)])
        }
        try db.run("""
            CREATE TRIGGER IF NOT EXISTS fixture_account AFTER INSERT ON messages WHEN NEW.account_id IS NULL
            BEGIN UPDATE messages SET account_id = (SELECT min(id) FROM accounts) WHERE id = NEW.id; END
            """)
    }
    return SQLiteDeliveryStore(store: store)
}

/// `SELECT count(*) FROM table`.
func tableCount(_ store: Store, _ table: String) throws -> Int {
    try store.read { db throws(StoreError) in try db.scalar("SELECT count(*) FROM \(table)", as: Int.self) ?? 0 }
}

/// All rows of a query, through a reader.
func rows(_ store: Store, _ sql: String, _ bindings: [SQLValue] = []) throws -> [Row] {
    try store.read { db throws(StoreError) in try db.query(sql, bindings) }
}

/// Row counts of every table the delivery store writes.
func deliveryTableCounts(_ store: Store) throws -> [String: Int] {
    var counts: [String: Int] = [:]
    for table in ["messages", "deliveries", "delivery_events", "outbox"] {
        counts[table] = try tableCount(store, table)
    }
    return counts
}

/// Inserts an account, an app and one registration per device (status `PinVerified`, the token `Fixture.pushed`
/// pushes to) by SQL.
func insertRegistrations(_ store: Store, devices: [DeviceID]) async throws {
    try await store.write { db throws(StoreError) in
        try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('acme', 'token-1', 0)")
        try db.run("INSERT INTO apps (account_id, name, app_key, app_secret, created_at) VALUES (1, 'app', '\(Fixture.appKey.text)', 'secret', 0)")
        for device in devices {
            try db.run("""
                INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
                VALUES (?, 1, '+31600000001', 'iOS', ?, 'PinVerified', 0, 0)
                """, [.text(device.text), .text("token-\(device.text)")])
        }
    }
}
