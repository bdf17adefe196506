import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore

@Suite("Account administration and app deletion in the store")
struct AccountAdministrationStoreTests {
    /// A store with account "Acme" and its two apps, "Used" and "Unused".
    private func withAccount(_ body: (Store, Account, App, App) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/tandem.sqlite"))
            let acme = Account(name: "Acme", productToken: ProductToken(try Fixture.guid(0xA1)), createdAt: 1)
            try await store.insert(acme)
            let used = App(key: AppKey(try Fixture.guid(0x1)), secret: try #require(AppSecret("used-secret")), name: "Used",
                           account: acme.productToken, defaultMessageType: .default, createdAt: 10)
            let unused = App(key: AppKey(try Fixture.guid(0x2)), secret: try #require(AppSecret("unused-secret")), name: "Unused",
                             account: acme.productToken, defaultMessageType: .default, createdAt: 20)
            try await store.insert(used)
            try await store.insert(unused)
            do {
                try await body(store, acme, used, unused)
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    @Test("disabling and enabling change only that account; an unknown token changes nothing")
    func disable() async throws {
        try await withAccount { store, acme, _, _ async throws in
            #expect(try await store.setDisabled(account: acme.productToken, true))
            #expect(try store.account(productToken: acme.productToken)?.disabled == true)
            #expect(try await store.setDisabled(account: acme.productToken, false))
            #expect(try store.account(productToken: acme.productToken)?.disabled == false)
            #expect(!(try await store.setDisabled(account: ProductToken(try Fixture.guid(0xFF)), true)))
        }
    }

    @Test("a new product token keeps the account's apps; the old token finds nothing")
    func rotateToken() async throws {
        try await withAccount { store, acme, used, _ async throws in
            let fresh = ProductToken(try Fixture.guid(0xB1))
            #expect(try await store.replaceProductToken(acme.productToken, with: fresh))
            #expect(try store.account(productToken: acme.productToken) == nil)
            #expect(try store.account(productToken: fresh)?.name == "Acme")
            #expect(try store.app(key: used.key)?.account == fresh)
            #expect(!(try await store.replaceProductToken(acme.productToken, with: ProductToken(try Fixture.guid(0xB2)))))
        }
    }

    @Test("an app no message names is deleted with its registrations; one that messages name stays whole")
    func deleteApp() async throws {
        try await withAccount { store, _, used, unused async throws in
            try await store.write { (db: Connection) throws(StoreError) in
                try db.run("""
                    INSERT INTO registrations (device_id, app_id, platform, created_at, updated_at)
                    SELECT 'device-' || app_key, id, 'Android', 0, 0 FROM apps
                    """)
                try db.run("""
                    INSERT INTO messages (message_id, account_id, app_id, sender, body, created_at)
                    SELECT 'message-1', account_id, id, 'Acme', 'hello', 0 FROM apps WHERE app_key = ?
                    """, [.text(used.key.text)])
            }
            #expect(try await store.deleteApp(key: used.key) == .inUse(messages: 1))
            #expect(try store.app(key: used.key) == used)
            #expect(try await store.deleteApp(key: unused.key) == .deleted(registrations: 1))
            #expect(try store.app(key: unused.key) == nil)
            #expect(try store.read { db throws(StoreError) in
                try db.scalar("SELECT count(*) FROM registrations", as: Int64.self)
            } == 1)
            #expect(try await store.deleteApp(key: unused.key) == .notFound)
        }
    }

    @Test("an app with BWMI settings and devices is deleted with them (they refer to the app and its registrations)")
    func deleteBWMIApp() async throws {
        try await withAccount { store, _, _, unused async throws in
            #expect(try await store.setBWMISettings(app: unused.key, BWMIAppSettings(trustPhones: true, staticKey: "k")))
            _ = try await store.registerBWMIDevice(app: unused.key, platform: .iOS, token: try #require(PushToken("tok-1")),
                                                   phone: MSISDN("+31612345678"), email: "a@example.com", at: Timestamp(milliseconds: 0))
            #expect(try store.bwmiDevice(app: unused.key, token: try #require(PushToken("tok-1"))) != nil)
            #expect(try await store.deleteApp(key: unused.key) == .deleted(registrations: 1))
            let left = try store.read { db throws(StoreError) in
                try ["bwmi_apps", "bwmi_devices", "registrations"].map { table throws(StoreError) in
                    try db.scalar("SELECT count(*) FROM \(table)", as: Int64.self) ?? -1
                }
            }
            #expect(left == [0, 0, 0])
            #expect(try store.bwmiDevice(app: unused.key, token: try #require(PushToken("tok-1"))) == nil, "not served from the cache")
        }
    }
}
