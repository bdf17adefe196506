import Foundation
import TandemCore
import Testing
@testable import TandemStore

/// cospace's users and tokens in the store: registrations of the app, scoped per user.
@Suite("cospace registry in the store")
struct CospaceStoreTests {
    static let appKey = AppKey(GUID("00000000-0000-0000-0000-0000000000a1")!)
    static let otherAppKey = AppKey(GUID("00000000-0000-0000-0000-0000000000a2")!)
    static let alice = AppUserID(GUID("9aed5e94-3803-11e3-8475-0024e8f90cc0")!)
    static let bob = AppUserID(GUID("9aed5e94-3803-11e3-8475-0024e8f90cc1")!)
    static let now = Timestamp(milliseconds: 1_000)
    static let hex = String(repeating: "ab", count: 32)

    private func withStore(_ body: (Store) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/tandem.sqlite"))
            let account = Account(name: "Acme", productToken: ProductToken(GUID("00000000-0000-0000-0000-0000000000f1")!), createdAt: 1)
            try await store.insert(account)
            for key in [Self.appKey, Self.otherAppKey] {
                try await store.insert(App(key: key, secret: AppSecret("secret-\(key.text)")!, name: "App", account: account.productToken,
                                           defaultMessageType: .default, createdAt: 2))
            }
            #expect(try await store.addUser(app: Self.appKey, user: Self.alice, tokenHash: "hash-alice", at: Self.now) == .added)
            #expect(try await store.addUser(app: Self.appKey, user: Self.bob, tokenHash: "hash-bob", at: Self.now) == .added)
            do {
                try await body(store)
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    static func apns(_ token: String = hex, sandbox: Bool? = true, topic: String? = nil) -> CospaceToken {
        .apns(deviceToken: PushToken(token)!, applicationID: "ABCDE12345.com.acme.app", sandbox: sandbox, topic: topic)
    }

    static let gcm = CospaceToken.gcm(registrationID: PushToken("APA91bHun4MxP5egoKMwt2KZFBaFUH")!)

    @Test("a token another user of the app holds moves to the user who adds it; an SDK install holding it loses it")
    func tokenMoves() async throws {
        try await withStore { store in
            try await store.addToken(Self.apns(), app: Self.appKey, user: Self.alice, at: Self.now)
            try await store.addToken(Self.apns(sandbox: nil), app: Self.appKey, user: Self.bob, at: Self.now)
            #expect(try store.tokens(app: Self.appKey, user: Self.alice).entries.isEmpty)
            #expect(try store.tokens(app: Self.appKey, user: Self.bob).entries.map(\.token) == [Self.apns(sandbox: nil)])

            let install = DeviceID(GUID("00000000-0000-0000-0000-0000000000d1")!)
            try await store.create(DeviceRegistration(deviceID: install, app: Self.appKey, platform: .android, userAgent: "UA",
                                                      pushToken: Self.gcm.token, notificationsEnabled: true, verification: Verification(),
                                                      createdAt: Self.now, updatedAt: Self.now))
            try await store.addToken(Self.gcm, app: Self.appKey, user: Self.alice, at: Self.now)
            #expect(try store.registration(install)?.pushToken == nil)  // read through the cache, which was invalidated
            #expect(try store.tokens(app: Self.appKey, user: Self.alice).entries.map(\.token) == [Self.gcm])
        }
    }

    @Test("a token declared dead leaves the user's list and routes no more; adding it again revives it")
    func deadTokens() async throws {
        try await withStore { store in
            try await store.addToken(Self.apns(), app: Self.appKey, user: Self.alice, at: Self.now)
            let device = try #require(try store.tokens(app: Self.appKey, user: Self.alice).entries.first?.device)
            try await store.write { db throws(StoreError) in
                try db.run("UPDATE registrations SET status = 'Invalid' WHERE device_id = ?", [.text(device.text)])
            }
            #expect(try store.tokens(app: Self.appKey, user: Self.alice).entries.isEmpty)
            #expect(try store.registration(app: Self.appKey, device: device)?.status == .invalid)
            try await store.addToken(Self.apns(), app: Self.appKey, user: Self.alice, at: Self.now)
            #expect(try store.tokens(app: Self.appKey, user: Self.alice).entries.map(\.device) == [device])
        }
    }

    @Test("the router sees a cospace token's own APNs environment and topic (the bundle id when none was given)")
    func routing() async throws {
        try await withStore { store in
            try await store.addToken(Self.apns(), app: Self.appKey, user: Self.alice, at: Self.now)
            try await store.addToken(Self.apns(String(repeating: "cd", count: 32), sandbox: false, topic: "com.acme.app.voip"),
                                     app: Self.appKey, user: Self.alice, at: Self.now)
            let entries = try store.tokens(app: Self.appKey, user: Self.alice).entries
            let first = try #require(try store.registration(app: Self.appKey, device: entries[0].device))
            let second = try #require(try store.registration(app: Self.appKey, device: entries[1].device))
            #expect(first.pushTarget == PushTarget(deviceID: entries[0].device, platform: .iOS, token: PushToken(Self.hex)!,
                                                   apnsSandbox: true, apnsTopic: "com.acme.app"))
            #expect(second.pushTarget?.apnsSandbox == false && second.pushTarget?.apnsTopic == "com.acme.app.voip")
            #expect(first.msisdn == nil && first.status == .unverified && !first.isPushable)
            #expect(try store.registration(app: Self.otherAppKey, device: entries[0].device) == nil)
        }
    }

    @Test("an SDK install's Development flag is stored with it and reaches its push target")
    func development() async throws {
        try await withStore { store in
            let install = DeviceID(GUID("00000000-0000-0000-0000-0000000000d2")!)
            try await store.create(DeviceRegistration(deviceID: install, app: Self.appKey, platform: .iOS, userAgent: "UA",
                                                      pushToken: PushToken("ios-token")!, notificationsEnabled: true,
                                                      verification: Verification(), createdAt: Self.now, updatedAt: Self.now))
            #expect(try store.registration(install)?.apnsSandbox == nil)
            _ = try await store.update(install) { $0.apnsSandbox = true }
            #expect(try store.registration(install)?.apnsSandbox == true)
            #expect(try store.registration(app: Self.appKey, device: install)?.pushTarget?.apnsSandbox == true)
            #expect(try store.registration(app: Self.appKey, device: install)?.pushTarget?.apnsTopic == nil)
        }
    }
}
