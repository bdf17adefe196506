import Foundation
import TandemCore
import Testing
@testable import TandemStore

@Suite("Migration 4 (device API)")
struct DeviceAPIMigrationTests {
    @Test("existing deliveries get their inbox flags from their snapshots")
    func backfill() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            let old = try Store.open(StoreConfiguration(path: path), migrations: Array(TandemSchema.migrations.prefix(3)))
            try await old.write { db throws(StoreError) in
                try db.run("INSERT INTO messages (message_id, sender, body, created_at) VALUES ('m-1', 'Acme', 'hello', 0)")
                try db.run("""
                    INSERT INTO deliveries (message_id, msisdn, state, status, final, snapshot, created_at, updated_at)
                    VALUES (1, '+31600000001', 'pushing', 'Sent', 0, '{"plan":{"targets":[]},"pushTerminated":false}', 0, 0),
                           (1, '+31600000002', 'final', 'Cancelled', 1, '{"resolution":"withdrawn","pushTerminated":true}', 0, 0),
                           (1, '+31600000003', 'final', 'Delivered', 1, '{"resolution":"deliveredBySMS"}', 0, 0)
                    """)
            }
            await old.close()
            let store = try Store.open(StoreConfiguration(path: path))
            let flags = try store.read { db throws(StoreError) in
                try db.query("SELECT msisdn, pushed, push_withdrawn FROM deliveries ORDER BY id").map(\.values)
            }
            #expect(flags == [[.text("+31600000001"), .integer(1), .integer(0)],
                              [.text("+31600000002"), .integer(0), .integer(1)],
                              [.text("+31600000003"), .integer(0), .integer(0)]])
            #expect(try store.read { db throws(StoreError) in try db.query("PRAGMA integrity_check").map(\.values) } == [[.text("ok")]])
            await store.close()
        }
    }
}
