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
