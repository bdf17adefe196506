import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every store must do for the app manager (``AppRegistry``, ``PushCredentialsSource``) and the account
/// administration: each test runs against SQLite and PostgreSQL.
@Suite("Accounts and apps contract")
struct AccountsAppsContractTests {
    static let apns = APNsCredentials(keySource: .file("/etc/tandem/AuthKey_ABC123DEFG.p8"), keyID: "ABC123DEFG",
                                      teamID: "DEF123GHIJ", topic: "com.acme.app", sandbox: true)
    static let fcm = FCMCredentials(serviceAccountPath: "/etc/tandem/acme-firebase.json")

    @Test("accounts list oldest first; a product token is unique; an app needs an existing account and a new key",
          arguments: Backend.allCases)
    func accountsAndApps(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let registry: any AppRegistry = directory.database
        #expect(try await registry.accounts().map(\.name) == ["fixture", "Acme", "Globex"])
        #expect(try await registry.account(productToken: directory.acme.productToken) == directory.acme)
        #expect(try await registry.account(productToken: ProductToken(try Directory.unknown())) == nil)
        let duplicate = Account(name: "Again", productToken: directory.acme.productToken, createdAt: 3)
        let error = await #expect(throws: (any Error).self) { try await registry.insert(duplicate) }
        #expect(error.map(isUniqueViolation) == true, "\(String(describing: error))")
        let orphan = App(key: AppKey(try Fixture.guid(0x3)), secret: try #require(AppSecret("third-secret")), name: "Orphan",
                         account: ProductToken(try Directory.unknown()), defaultMessageType: .default, createdAt: 30)
        await #expect(throws: (any Error).self) { try await registry.insert(orphan) }
        let sameKey = App(key: directory.first.key, secret: try #require(AppSecret("third-secret")), name: "Copy",
                          account: directory.acme.productToken, defaultMessageType: .default, createdAt: 30)
        let keyError = await #expect(throws: (any Error).self) { try await registry.insert(sameKey) }
        #expect(keyError.map(isUniqueViolation) == true)
        #expect(try await registry.apps() == [
            AppSummary(app: directory.first, accountName: "Acme", pushCredentials: AppPushCredentials()),
            AppSummary(app: directory.second, accountName: "Globex", pushCredentials: AppPushCredentials()),
        ])
        #expect(try await directory.database.app(key: directory.first.key) == directory.first)
        #expect(try await directory.database.app(key: AppKey(try Directory.unknown())) == nil)
        await directory.close()
    }

    @Test("disabling, enabling and replacing the product token change that account only; unknown tokens change nothing",
          arguments: Backend.allCases)
    func administration(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        let acme = directory.acme.productToken
        #expect(try await database.setDisabled(account: acme, true))
        #expect(try await database.account(productToken: acme)?.disabled == true)
        #expect(try await database.account(productToken: directory.globex.productToken)?.disabled == false)
        #expect(try await database.setDisabled(account: acme, false))
        #expect(try await database.account(productToken: acme)?.disabled == false)
        #expect(!(try await database.setDisabled(account: ProductToken(try Directory.unknown()), true)))

        let fresh = ProductToken(try Fixture.guid(0xB1))
        #expect(try await database.replaceProductToken(acme, with: fresh))
        #expect(try await database.account(productToken: acme) == nil)
        #expect(try await database.account(productToken: fresh)?.name == "Acme")
        #expect(try await database.app(key: directory.first.key)?.account == fresh)
        #expect(!(try await database.replaceProductToken(acme, with: ProductToken(try Fixture.guid(0xB2)))))
        let taken = await #expect(throws: (any Error).self) {
            try await database.replaceProductToken(fresh, with: directory.globex.productToken)
        }
        #expect(taken.map(isUniqueViolation) == true)

        #expect(try await database.setWebhook(account: fresh, url: "http://127.0.0.1:9/acme", format: .xml))
        #expect(try await directory.store.texts("SELECT webhook_format FROM accounts WHERE name = 'Acme'") == ["xml"])
        #expect(try await database.setWebhook(account: fresh, url: nil, format: .json))
        #expect(try await directory.store.texts("SELECT webhook_url FROM accounts WHERE name = 'Acme'") == [nil])
        #expect(!(try await database.setWebhook(account: acme, url: nil, format: .json)))
        await directory.close()
    }

    @Test("appDetails counts registrations by status with zeros for the rest; the secret and default type change for one app",
          arguments: Backend.allCases)
    func detailsSecretType(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let registry: any AppRegistry = directory.database
        for (index, (app, status)) in [(directory.first, "PinVerified"), (directory.first, "PinVerified"),
                                       (directory.first, "Unverified"), (directory.second, "PinVerified")].enumerated() {
            try await directory.store.execute("""
                INSERT INTO registrations (device_id, app_id, platform, status, created_at, updated_at)
                SELECT 'device-\(index)', id, 'Android', '\(status)', 0, 0 FROM apps WHERE app_key = '\(app.key.text)'
                """)
        }
        let details = try #require(try await registry.appDetails(key: directory.first.key))
        #expect(details.app == directory.first && details.accountName == "Acme")
        #expect(details.registrations == [.pinVerified: 2, .unverified: 1, .waitingForPin: 0, .lastPinVerificationFailed: 0,
                                          .invalid: 0])
        #expect(try await registry.appDetails(key: directory.second.key)?.registrationCount == 1)
        #expect(try await registry.appDetails(key: AppKey(try Directory.unknown())) == nil)

        let fresh = try #require(AppSecret("rotated-secret"))
        #expect(try await registry.rotateSecret(key: directory.first.key, to: fresh))
        #expect(try await directory.database.app(key: directory.first.key)?.secret == fresh)
        #expect(try await directory.database.app(key: directory.second.key)?.secret == directory.second.secret)
        #expect(!(try await registry.rotateSecret(key: AppKey(try Directory.unknown()), to: fresh)))
        #expect(try await registry.setDefaultMessageType(key: directory.first.key, .critical))
        #expect(try await directory.database.app(key: directory.first.key)?.defaultMessageType == .critical)
        #expect(try await directory.database.app(key: directory.second.key)?.defaultMessageType == .default)
        #expect(!(try await registry.setDefaultMessageType(key: AppKey(try Directory.unknown()), .otp)))
        await directory.close()
    }

    @Test("push credentials: stored as sorted-key JSON, one platform set keeps the other, nil removes, concurrent changes both survive",
          arguments: Backend.allCases)
    func credentials(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let registry: any AppRegistry = directory.database
        let source: any PushCredentialsSource = directory.database
        let key = directory.first.key
        async let apns = registry.setAPNsCredentials(key: key, Self.apns)
        async let fcm = registry.setFCMCredentials(key: key, Self.fcm)
        #expect(try await (apns, fcm) == (true, true))
        #expect(try await registry.appDetails(key: key)?.pushCredentials == AppPushCredentials(apns: Self.apns, fcm: Self.fcm))
        #expect(try await directory.store.texts("SELECT push_credentials FROM apps WHERE app_key = '\(key.text)'") == [
            #"{"apns":{"keyFile":"/etc/tandem/AuthKey_ABC123DEFG.p8","keyId":"ABC123DEFG","sandbox":true,"#
                + #""teamId":"DEF123GHIJ","topic":"com.acme.app"},"fcm":{"serviceAccountFile":"/etc/tandem/acme-firebase.json"}}"#,
        ])
        #expect(try await registry.apps().map(\.pushCredentials) == [AppPushCredentials(apns: Self.apns, fcm: Self.fcm),
                                                                    AppPushCredentials()])
        #expect(try await registry.setFCMCredentials(key: key, nil))
        #expect(try await source.pushCredentials(for: key) == AppPushCredentials(apns: Self.apns))
        #expect(try await registry.setAPNsCredentials(key: key, nil))
        #expect(try await source.pushCredentials(for: key) == nil)
        #expect(try await directory.store.texts("SELECT push_credentials FROM apps WHERE app_key = '\(key.text)'") == [nil])
        #expect(try await source.pushCredentials(for: AppKey(try Directory.unknown())) == nil)
        #expect(!(try await registry.setAPNsCredentials(key: AppKey(try Directory.unknown()), Self.apns)))

        var bad = Self.apns
        bad.keyID = "short"
        await #expect(throws: (any Error).self) { try await registry.setAPNsCredentials(key: key, bad) }
        #expect(try await source.pushCredentials(for: key) == nil, "nothing written")

        // A stored document that does not decode fails the reads that decode it, not the gateway's lookup.
        try await directory.store.execute(#"UPDATE apps SET push_credentials = '{"apns":{"keyFile":"relative.p8"}}' WHERE app_key = '"#
                                          + key.text + "'")
        await #expect(throws: (any Error).self) { try await registry.apps() }
        await #expect(throws: (any Error).self) { try await registry.appDetails(key: key) }
        #expect(try await directory.database.app(key: key) == directory.first)
        await directory.close()
    }

    @Test("SMS protection and country rules are stored (the default as NULL); prefix blocks replace, expire and lift once",
          arguments: Backend.allCases)
    func smsProtection(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let registry: any AppRegistry = directory.database
        let blocks = try #require(directory.store.database as? any PrefixBlockStore)
        let first = directory.first, second = directory.second
        let protection = SMSProtection(mode: .monitor, countries: .allow([RegionCode("NL")!, RegionCode("BE")!]), pinLength: 4)
        #expect(try await registry.setSMSProtection(key: first.key, protection))
        #expect(try await directory.database.app(key: first.key)?.smsProtection == protection)
        #expect(try await directory.database.app(key: second.key)?.smsProtection == SMSProtection())
        #expect(try await registry.setSMSProtection(key: first.key, SMSProtection()))
        #expect(try await directory.store.texts("SELECT sms_protection FROM apps") == [nil, nil])
        #expect(!(try await registry.setSMSProtection(key: AppKey(try Directory.unknown()), protection)))

        let deny = SMSCountryPolicy(mode: .enforce, countries: .deny([RegionCode("CU")!]))
        #expect(try await registry.setSMSCountries(productToken: first.account, deny))
        #expect(try await registry.account(productToken: first.account)?.smsCountries == deny)
        #expect(try await registry.accounts().map(\.smsCountries) == [SMSCountryPolicy(), deny, SMSCountryPolicy()])
        #expect(!(try await registry.setSMSCountries(productToken: ProductToken(try Directory.unknown()), deny)))

        let now = Timestamp(milliseconds: 1_000_000)
        let earlier = PrefixBlock(app: first.key, prefix: NumberPrefix("+3161234")!, region: RegionCode("NL")!,
                                  since: now + .seconds(-60), until: now + .seconds(600), sent: 20, verified: 0)
        let block = PrefixBlock(app: first.key, prefix: NumberPrefix("+3161234")!, region: RegionCode("NL")!, since: now,
                                until: now + .seconds(3_600), sent: 25, verified: 1)
        let ended = PrefixBlock(app: second.key, prefix: NumberPrefix("+3161235")!, region: RegionCode("NL")!,
                                since: now + .seconds(-7_200), until: now + .seconds(-1), sent: 25, verified: 1)
        let other = PrefixBlock(app: second.key, prefix: NumberPrefix("+3161236")!, region: RegionCode("NL")!,
                                since: now, until: now + .seconds(60), sent: 30, verified: 2)
        try await blocks.insert(earlier)
        try await blocks.insert(block)  // replaces `earlier`
        try await blocks.insert(ended)
        try await blocks.insert(other)
        #expect(try await blocks.activePrefixBlocks(now: now) == [block, other])
        let unknown = PrefixBlock(app: AppKey(try Directory.unknown()), prefix: block.prefix, region: block.region, since: now,
                                  until: now + .seconds(60), sent: 1, verified: 0)
        await #expect(throws: (any Error).self) { try await blocks.insert(unknown) }
        #expect(try await blocks.liftPrefixBlock(app: first.key, prefix: block.prefix, now: now + .seconds(60)))
        #expect(!(try await blocks.liftPrefixBlock(app: first.key, prefix: block.prefix, now: now + .seconds(61))))
        #expect(!(try await blocks.liftPrefixBlock(app: second.key, prefix: other.prefix, now: now + .seconds(60))), "expired")
        #expect(try await blocks.activePrefixBlocks(now: now + .seconds(59)) == [other])
        await directory.close()
    }

    @Test("an app no message names is deleted with its registrations and blocks; one that messages name stays whole",
          arguments: Backend.allCases)
    func deleteApp(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        try await directory.store.execute("""
            INSERT INTO registrations (device_id, app_id, platform, created_at, updated_at)
            SELECT 'device-' || app_key, id, 'Android', 0, 0 FROM apps
            """)
        try await database.insert(PrefixBlock(app: directory.second.key, prefix: NumberPrefix("+3161234")!, region: RegionCode("NL")!,
                                              since: Fixture.t0, until: Fixture.t0 + .seconds(60), sent: 1, verified: 0))
        try await directory.send(1, app: directory.first, msisdn: Fixture.msisdn(1))
        #expect(try await database.deleteApp(key: directory.first.key) == .inUse(messages: 1))
        #expect(try await database.app(key: directory.first.key) == directory.first)
        #expect(try await database.deleteApp(key: directory.second.key) == .deleted(registrations: 1))
        #expect(try await database.app(key: directory.second.key) == nil)
        #expect(try await directory.store.count("registrations") == 1)
        #expect(try await directory.store.count("sms_prefix_blocks") == 0)
        #expect(try await database.deleteApp(key: directory.second.key) == .notFound)
        await directory.close()
    }

    @Test("the store's lifecycle: its backend's name, the schema version, reachable while open, the backlog counters",
          arguments: Backend.allCases)
    func lifecycle(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        #expect(database.backend.kind == (backend == .sqlite ? "sqlite" : "postgresql"))
        #expect(!database.backend.location.contains("password"))
        #expect(try await database.schemaVersion() >= 1)
        #expect(database.isReachable())
        #expect(try await database.outboxBacklog() == 0)
        #expect(try await database.queuedSpoolRecipients() == 0)
        await directory.close()
    }
}
