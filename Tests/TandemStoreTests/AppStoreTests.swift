import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore

@Suite("App manager store")
struct AppStoreTests {
    static let apns = APNsCredentials(keySource: .file("/etc/tandem/AuthKey_ABC123DEFG.p8"), keyID: "ABC123DEFG",
                                      teamID: "DEF123GHIJ", topic: "com.acme.app", sandbox: true)

    /// A store with accounts "Acme" and "Globex" and one app each ("Acme App" OTP, then "Globex App" Default).
    private func withApps(_ body: (Store, App, App) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/tandem.sqlite"))
            let acme = Account(name: "Acme", productToken: ProductToken(try Fixture.guid(0xA1)), createdAt: 1)
            let globex = Account(name: "Globex", productToken: ProductToken(try Fixture.guid(0xA2)), createdAt: 2)
            try await store.insert(acme)
            try await store.insert(globex)
            let first = App(key: AppKey(try Fixture.guid(0x1)), secret: try #require(AppSecret("first-secret")), name: "Acme App",
                            account: acme.productToken, defaultMessageType: .otp, createdAt: 10)
            let second = App(key: AppKey(try Fixture.guid(0x2)), secret: try #require(AppSecret("second-secret")),
                             name: "Globex App", account: globex.productToken, defaultMessageType: .default, createdAt: 20)
            try await store.insert(first)
            try await store.insert(second)
            do {
                try await body(store, first, second)
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    @Test("BWMI apps come from a cache that sees what another process commits (here a second store on the same file)")
    func bwmiAppCache() async throws {
        try await withApps { store, first, second async throws in
            #expect(try store.bwmiApp(key: first.key) == BWMIApp(app: first, settings: BWMIAppSettings()))
            #expect(try store.bwmiApp(key: AppKey(try Fixture.guid(0x99))) == nil)
            let other = try Store.open(StoreConfiguration(path: store.configuration.path))
            let settings = BWMIAppSettings(trustPhones: true, staticKey: "a-static-key-of-16+")
            #expect(try await other.setBWMISettings(app: first.key, settings))
            #expect(try store.bwmiApp(key: first.key) == BWMIApp(app: first, settings: settings))
            _ = try await other.deleteApp(key: first.key)
            #expect(try store.bwmiApp(key: first.key) == nil)
            #expect(try store.bwmiApp(key: second.key) == BWMIApp(app: second, settings: BWMIAppSettings()))
            // This process's own writes are seen the same way.
            #expect(try await store.setBWMISettings(app: second.key, settings))
            #expect(try store.bwmiApp(key: second.key)?.settings == settings)
            await other.close()
        }
    }

    @Test("a commit-watched cache reads once while nothing commits, and again after any other connection committed")
    func commitWatchedCache() async throws {
        try await withTemporaryDirectory { dir in
            let configuration = StoreConfiguration(path: dir + "/tandem.sqlite")
            let store = try Store.open(configuration)
            var options = configuration.connectionOptions
            options.readOnly = true
            let cache = CommitWatchedCache<Int, String>(watch: try Connection(path: configuration.path, options: options), capacity: 10)
            var loads = 0
            func lookup(_ key: Int, _ value: String?) throws -> String? {
                try cache.value(key) { () throws(StoreError) -> String? in
                    loads += 1
                    return value
                }
            }
            #expect(try lookup(1, "one") == "one")
            #expect(try lookup(1, "changed") == "one" && loads == 1)
            #expect(try lookup(2, nil) == nil && lookup(2, nil) == nil && loads == 3)   // absent values are not cached
            let account = Account(name: "Acme", productToken: ProductToken(try Fixture.guid(0xA1)), createdAt: 1)
            try await store.insert(account)
            #expect(try lookup(1, "changed") == "changed" && loads == 4)
            #expect(try lookup(1, "again") == "changed" && loads == 4)
            cache.close()
            #expect(try lookup(1, "closed") == "closed" && loads == 5)
            await store.close()
        }
    }

    @Test("invalid credentials are refused with .encoding before anything is written")
    func invalidCredentials() async throws {
        try await withApps { store, first, _ async throws in
            var bad = Self.apns
            bad.keyID = "short"
            await #expect(throws: StoreError.encoding(column: "apps.push_credentials",
                                                      message: PushCredentialsError.keyID("short").description)) {
                try await store.setAPNsCredentials(key: first.key, bad)
            }
            #expect(try store.appDetails(key: first.key)?.pushCredentials == AppPushCredentials())
        }
    }

    @Test("a stored document that does not decode fails the read instead of reading as not set")
    func corruptCredentials() async throws {
        try await withApps { store, first, _ async throws in
            try await store.write { (db: Connection) throws(StoreError) in
                try db.run(#"UPDATE apps SET push_credentials = '{"apns":{"keyFile":"relative.p8"}}' WHERE app_key = ?"#,
                           [.text(first.key.text)])
            }
            #expect(throws: StoreError.self) { try store.appDetails(key: first.key) }
            #expect(throws: StoreError.self) { try store.apps() }
            do throws(StoreError) {
                _ = try store.apps()
            } catch {
                guard case .decoding(let column, let message) = error else { Issue.record("\(error)"); return }
                #expect(column == "apps.push_credentials")
                #expect(message.hasPrefix("app \(first.key.text): apns."))
            }
            // The gateway's lookup does not read the credentials and keeps working.
            #expect(try store.app(key: first.key) == first)
        }
    }
}
