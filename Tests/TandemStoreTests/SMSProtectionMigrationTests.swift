import Foundation
import TandemCore
import Testing
@testable import TandemStore

@Suite("Migration 12 (SMS pumping protection, PIN length)")
struct SMSProtectionMigrationTests {
    @Test("an existing database migrates forward: apps and accounts read with the defaults, a PIN out keeps no length")
    func forward() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            let old = try Store.open(StoreConfiguration(path: path), migrations: Array(TandemSchema.migrations.prefix(11)))
            let token = "00000000-0000-4000-8000-0000000000a1", key = "00000000-0000-4000-8000-000000000001"
            let device = "00000000-0000-4000-8000-0000000000d1"
            try await old.write { db throws(StoreError) in
                try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('Acme', ?, 0)", [.text(token)])
                try db.run("INSERT INTO apps (account_id, name, app_key, app_secret, created_at) VALUES (1, 'App', ?, 'secret', 0)",
                           [.text(key)])
                try db.run("""
                    INSERT INTO registrations (device_id, app_id, msisdn, platform, status, pin_nonce, pin_msisdn, pin_issued_at,
                                               pin_expires_at, pin_attempts, created_at, updated_at)
                    VALUES (?, 1, '+31612345678', 'Android', 'WaitingForPin', 'nonce', '+31612345678', 0, 600000, 1, 0, 0)
                    """, [.text(device)])
            }
            await old.close()

            let store = try Store.open(StoreConfiguration(path: path))
            #expect(try store.schemaVersion() == newestSchemaVersion)
            #expect(try store.app(key: AppKey(key)!)?.smsProtection == SMSProtection())
            #expect(try store.account(productToken: ProductToken(token)!)?.smsCountries == SMSCountryPolicy())
            let challenge = try #require(try store.registration(DeviceID(device)!)?.verification.challenge)
            #expect(challenge.pinLength == nil && challenge.length(configured: 6) == 6 && challenge.attempts == 1)
            #expect(try store.activePrefixBlocks(now: Timestamp(milliseconds: 0)).isEmpty)
            #expect(try store.read { db throws(StoreError) in try db.query("PRAGMA integrity_check").map(\.values) } == [[.text("ok")]])
            await store.close()
        }
    }
}
