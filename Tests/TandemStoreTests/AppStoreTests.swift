import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore

@Suite("App manager store")
struct AppStoreTests {
    static let apns = APNsCredentials(keySource: .file("/etc/tandem/AuthKey_ABC123DEFG.p8"), keyID: "ABC123DEFG",
                                      teamID: "DEF123GHIJ", topic: "com.acme.app", sandbox: true)
    static let fcm = FCMCredentials(serviceAccountPath: "/etc/tandem/acme-firebase.json")

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

    @Test("apps() lists every app in creation order with its account's name and no credentials yet")
    func list() async throws {
        try await withApps { store, first, second async throws in
            let apps = try store.apps()
            #expect(apps == [AppSummary(app: first, accountName: "Acme", pushCredentials: AppPushCredentials()),
                             AppSummary(app: second, accountName: "Globex", pushCredentials: AppPushCredentials())])
            #expect(try store.app(key: first.key) == first)
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

    @Test("SMS protection, account country rules and prefix blocks are stored; a block outlives the store and is lifted once")
    func smsProtection() async throws {
        try await withApps { store, first, second async throws in
            let protection = SMSProtection(mode: .monitor, countries: .allow([RegionCode("NL")!, RegionCode("BE")!]), pinLength: 4)
            #expect(try await store.setSMSProtection(key: first.key, protection))
            #expect(try store.app(key: first.key)?.smsProtection == protection)
            #expect(try store.app(key: second.key)?.smsProtection == SMSProtection())
            #expect(try await store.setSMSProtection(key: first.key, SMSProtection()))   // back to the default: NULL
            #expect(try store.read { db throws(StoreError) in
                try db.scalar("SELECT count(*) FROM apps WHERE sms_protection IS NOT NULL", as: Int64.self)
            } == 0)
            #expect(!(try await store.setSMSProtection(key: AppKey(try Fixture.guid(0x99)), protection)))

            let deny = SMSCountryPolicy(mode: .enforce, countries: .deny([RegionCode("CU")!]))
            #expect(try await store.setSMSCountries(productToken: first.account, deny))
            #expect(try store.account(productToken: first.account)?.smsCountries == deny)
            #expect(try store.accounts().map(\.smsCountries) == [deny, SMSCountryPolicy()])

            let now = Timestamp(milliseconds: 1_000_000)
            let block = PrefixBlock(app: first.key, prefix: NumberPrefix("+3161234")!, region: RegionCode("NL")!, since: now,
                                    until: now + .seconds(3_600), sent: 25, verified: 1)
            let ended = PrefixBlock(app: second.key, prefix: NumberPrefix("+3161235")!, region: RegionCode("NL")!,
                                    since: now + .seconds(-7_200), until: now + .seconds(-1), sent: 25, verified: 1)
            try await store.insert(block)
            try await store.insert(ended)
            #expect(try store.activePrefixBlocks(now: now) == [block])
            #expect(try await store.liftPrefixBlock(app: first.key, prefix: block.prefix, now: now + .seconds(60)))
            #expect(!(try await store.liftPrefixBlock(app: first.key, prefix: block.prefix, now: now + .seconds(61))))
            #expect(try store.activePrefixBlocks(now: now + .seconds(60)).isEmpty)
        }
    }

    @Test("appDetails counts the app's registrations by status in one query, with zeros for the rest")
    func details() async throws {
        try await withApps { store, first, second async throws in
            try await store.write { (db: Connection) throws(StoreError) in
                for (index, (app, status)) in [(1, "PinVerified"), (1, "PinVerified"), (1, "Unverified"), (2, "PinVerified")]
                    .enumerated() {
                    try db.run("""
                        INSERT INTO registrations (device_id, app_id, platform, status, created_at, updated_at)
                        VALUES (?, ?, 'Android', ?, 0, 0)
                        """, [.text("device-\(index)"), .integer(Int64(app)), .text(status)])
                }
            }
            let details = try #require(try store.appDetails(key: first.key))
            #expect(details.app == first)
            #expect(details.accountName == "Acme")
            #expect(details.registrations == [.pinVerified: 2, .unverified: 1, .waitingForPin: 0,
                                              .lastPinVerificationFailed: 0, .invalid: 0])
            #expect(details.registrationCount == 3)
            #expect(try store.appDetails(key: second.key)?.registrationCount == 1)
            #expect(try store.appDetails(key: AppKey(try Fixture.guid(0x99))) == nil)
        }
    }

    @Test("rotating the secret changes only that app's secret; an unknown key changes nothing")
    func rotate() async throws {
        try await withApps { store, first, second async throws in
            let fresh = try #require(AppSecret("rotated-secret"))
            #expect(try await store.rotateSecret(key: first.key, to: fresh))
            #expect(try store.app(key: first.key)?.secret == fresh)
            #expect(try store.app(key: second.key)?.secret == second.secret)
            #expect(try await store.rotateSecret(key: AppKey(try Fixture.guid(0x99)), to: fresh) == false)
        }
    }

    @Test("push credentials round-trip through the JSON column with stable keys; empty stores NULL")
    func credentials() async throws {
        try await withApps { store, first, _ async throws in
            let both = AppPushCredentials(apns: Self.apns, fcm: Self.fcm)
            #expect(try await store.setPushCredentials(key: first.key, both))
            #expect(try store.appDetails(key: first.key)?.pushCredentials == both)
            let stored = try rows(store, "SELECT push_credentials FROM apps WHERE app_key = ?", [.text(first.key.text)])
            #expect(try stored.first?.get(0, as: String.self) == #"{"apns":{"keyFile":"/etc/tandem/AuthKey_ABC123DEFG.p8","#
                + #""keyId":"ABC123DEFG","sandbox":true,"teamId":"DEF123GHIJ","topic":"com.acme.app"},"#
                + #""fcm":{"serviceAccountFile":"/etc/tandem/acme-firebase.json"}}"#)
            #expect(try store.apps().map(\.pushCredentials) == [both, AppPushCredentials()])

            #expect(try await store.setPushCredentials(key: first.key, AppPushCredentials()))
            let cleared = try rows(store, "SELECT push_credentials FROM apps WHERE app_key = ?", [.text(first.key.text)])
            #expect(try cleared.first?.get(0, as: String?.self) == nil)
            #expect(try await store.setPushCredentials(key: AppKey(try Fixture.guid(0x99)), both) == false)
        }
    }

    @Test("setting one platform keeps the other; nil removes it")
    func perPlatform() async throws {
        try await withApps { store, first, _ async throws in
            #expect(try await store.setFCMCredentials(key: first.key, Self.fcm))
            var environment = Self.apns
            environment.keySource = .environment("ACME_APNS_KEY")
            #expect(try await store.setAPNsCredentials(key: first.key, environment))
            #expect(try store.appDetails(key: first.key)?.pushCredentials == AppPushCredentials(apns: environment, fcm: Self.fcm))
            #expect(try await store.setFCMCredentials(key: first.key, nil))
            #expect(try store.appDetails(key: first.key)?.pushCredentials == AppPushCredentials(apns: environment))
            #expect(try await store.setAPNsCredentials(key: AppKey(try Fixture.guid(0x99)), environment) == false)
            // What the push providers read at send time: the same credentials; nil for none or no such app.
            let source: any PushCredentialsSource = store
            #expect(try await source.pushCredentials(for: first.key) == AppPushCredentials(apns: environment))
            #expect(try await store.setAPNsCredentials(key: first.key, nil))
            #expect(try await source.pushCredentials(for: first.key) == nil)
            #expect(try await source.pushCredentials(for: AppKey(try Fixture.guid(0x99))) == nil)
        }
    }

    @Test("concurrent APNs and FCM updates both survive (read-change-write in one write body)")
    func concurrentPlatforms() async throws {
        try await withApps { store, first, _ async throws in
            async let apns = store.setAPNsCredentials(key: first.key, Self.apns)
            async let fcm = store.setFCMCredentials(key: first.key, Self.fcm)
            #expect(try await (apns, fcm) == (true, true))
            #expect(try store.appDetails(key: first.key)?.pushCredentials == AppPushCredentials(apns: Self.apns, fcm: Self.fcm))
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

    @Test("the default message type changes for that app only")
    func defaultType() async throws {
        try await withApps { store, first, second async throws in
            #expect(try await store.setDefaultMessageType(key: first.key, .critical))
            #expect(try store.app(key: first.key)?.defaultMessageType == .critical)
            #expect(try store.app(key: second.key)?.defaultMessageType == .default)
            #expect(try await store.setDefaultMessageType(key: AppKey(try Fixture.guid(0x99)), .otp) == false)
        }
    }

    @Test("the store serves as the AppRegistry the admin API uses")
    func registry() async throws {
        try await withApps { store, first, _ async throws in
            let registry: any AppRegistry = store
            await #expect(try registry.apps().count == 2)
            await #expect(try registry.accounts().map(\.name) == ["Acme", "Globex"])
            #expect(try await registry.setDefaultMessageType(key: first.key, .default))
            await #expect(try registry.appDetails(key: first.key)?.app.defaultMessageType == .default)
        }
    }
}
