import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every ``CospaceRegistry`` must do, whatever holds the rows: each test runs against SQLite and PostgreSQL.
@Suite("cospace registry contract")
struct CospaceContractTests {
    static let alice = AppUserID(GUID("9aed5e94-3803-11e3-8475-0024e8f90cc0")!)
    static let bob = AppUserID(GUID("9aed5e94-3803-11e3-8475-0024e8f90cc1")!)
    static let now = Timestamp(milliseconds: 1_000)
    static let hex = String(repeating: "ab", count: 32)
    static let gcm = CospaceToken.gcm(registrationID: PushToken("APA91bHun4MxP5egoKMwt2KZFBaFUH")!)

    static func apns(_ token: String = hex, sandbox: Bool? = true, topic: String? = nil) -> CospaceToken {
        .apns(deviceToken: PushToken(token)!, applicationID: "ABCDE12345.com.acme.app", sandbox: sandbox, topic: topic)
    }

    /// A store with the fixture apps and two users of the first app, alice and bob.
    private func withRegistry(_ backend: Backend, _ body: (any StoreUnderTest, any CospaceRegistry) async throws -> Void) async throws {
        let store = try await backend.open()
        do {
            try await PortFixture.insertApps(store)
            let registry = try #require(store.database as? any CospaceRegistry)
            #expect(try await registry.addUser(app: PortFixture.app, user: Self.alice, tokenHash: "hash-alice", at: Self.now) == .added)
            #expect(try await registry.addUser(app: PortFixture.app, user: Self.bob, tokenHash: "hash-bob", at: Self.now) == .added)
            try await body(store, registry)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test("users: added once, found by their token's hash, revoked (with their tokens), added again with a new token; unknown apps and users say so",
          arguments: Backend.allCases)
    func users(_ backend: Backend) async throws {
        try await withRegistry(backend) { store, registry in
            let app = PortFixture.app
            #expect(try await registry.addUser(app: app, user: Self.alice, tokenHash: "other", at: Self.now) == .exists)
            #expect(try await registry.addUser(app: PortFixture.unknownApp, user: Self.alice, tokenHash: "x", at: Self.now) == .unknownApp)
            // The same id in another app is another user; a hash another user holds is refused.
            #expect(try await registry.addUser(app: PortFixture.otherApp, user: Self.alice, tokenHash: "hash-other", at: Self.now) == .added)
            await #expect(throws: (any Error).self) {
                _ = try await registry.addUser(app: PortFixture.otherApp, user: Self.bob, tokenHash: "hash-alice", at: Self.now)
            }
            let found = try #require(try await registry.user(tokenHash: "hash-alice"))
            #expect(found.user == AppUser(id: Self.alice, app: app, createdAt: Self.now) && found.storedHash == "hash-alice")
            #expect(try await registry.user(tokenHash: "hash-other")?.user.app == PortFixture.otherApp)
            #expect(try await registry.user(tokenHash: "nobody") == nil)
            #expect(try await registry.users(app: PortFixture.unknownApp) == nil)
            #expect(try await registry.users(app: PortFixture.otherApp)?.map(\.id) == [Self.alice])

            try await registry.addToken(Self.gcm, app: app, user: Self.alice, at: Self.now)
            #expect(try await registry.revokeUser(app: app, user: Self.alice, at: Timestamp(milliseconds: 2_000)) == .revoked)
            #expect(try await registry.revokeUser(app: app, user: Self.alice, at: Self.now) == .unknownUser)
            #expect(try await registry.revokeUser(app: PortFixture.unknownApp, user: Self.alice, at: Self.now) == .unknownApp)
            #expect(try await registry.user(tokenHash: "hash-alice")?.user.revokedAt == Timestamp(milliseconds: 2_000))
            #expect(try await registry.tokens(app: app, user: Self.alice).entries.isEmpty)
            #expect(try await store.count("registrations") == 0)
            #expect(try await registry.cospaceCounts(app: app) == (users: 1, tokens: 0))
            #expect(try await registry.cospaceCounts(app: PortFixture.unknownApp) == (users: 0, tokens: 0))
            #expect(try await !registry.isActiveUser(app: app, user: Self.alice))
            #expect(try await registry.isActiveUser(app: app, user: Self.bob))
            #expect(try await registry.isActiveUser(app: PortFixture.otherApp, user: Self.alice))
            #expect(try await registry.users(app: app)?.map(\.isActive) == [false, true])

            #expect(try await registry.addUser(app: app, user: Self.alice, tokenHash: "hash-alice-2", at: Self.now) == .added)
            #expect(try await registry.user(tokenHash: "hash-alice") == nil)
            #expect(try await registry.user(tokenHash: "hash-alice-2")?.user.isActive == true)
            #expect(try await registry.users(app: app)?.map(\.id) == [Self.alice, Self.bob])
        }
    }

    @Test("tokens: add, update in place, list and delete per user and platform; another user sees and deletes none of them",
          arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) async throws {
        try await withRegistry(backend) { store, registry in
            let app = PortFixture.app
            try await registry.addToken(Self.gcm, app: app, user: Self.alice, at: Self.now)
            try await registry.addToken(Self.apns(), app: app, user: Self.alice, at: Self.now)
            #expect(try await registry.tokens(app: app, user: Self.alice).entries.map(\.token) == [Self.gcm, Self.apns()])
            #expect(try await registry.tokens(app: app, user: Self.bob).entries.isEmpty)
            #expect(try await registry.tokens(app: PortFixture.otherApp, user: Self.alice).entries.isEmpty)
            #expect(try await registry.deleteToken(PushToken(Self.hex)!, platform: .iOS, app: app, user: Self.bob) == false)
            // Platform matters: an APNs delete does not remove an FCM id.
            #expect(try await registry.deleteToken(Self.gcm.token, platform: .iOS, app: app, user: Self.alice) == false)

            let before = try await registry.tokens(app: app, user: Self.alice).entries
            try await registry.addToken(Self.apns(sandbox: false, topic: "com.acme.app.voip"), app: app, user: Self.alice, at: Self.now)
            let after = try await registry.tokens(app: app, user: Self.alice).entries
            #expect(after.map(\.device) == before.map(\.device))
            #expect(after.map(\.token) == [Self.gcm, Self.apns(sandbox: false, topic: "com.acme.app.voip")])
            #expect(try await store.scalar("SELECT origin || '/' || status FROM registrations ORDER BY id") == "cospace/Unverified")

            #expect(try await registry.deleteToken(Self.gcm.token, platform: .android, app: app, user: Self.alice))
            #expect(try await registry.tokens(app: app, user: Self.alice).entries.map(\.token)
                    == [Self.apns(sandbox: false, topic: "com.acme.app.voip")])
            #expect(try await registry.cospaceCounts(app: app) == (users: 2, tokens: 1))
        }
    }

    @Test("a token another user holds moves to the user who adds it; an SDK install holding it loses it to a new registration",
          arguments: Backend.allCases)
    func tokenMoves(_ backend: Backend) async throws {
        try await withRegistry(backend) { store, registry in
            let app = PortFixture.app
            try await registry.addToken(Self.apns(), app: app, user: Self.alice, at: Self.now)
            let moved = try #require(try await registry.tokens(app: app, user: Self.alice).entries.first?.device)
            try await registry.addToken(Self.apns(sandbox: nil), app: app, user: Self.bob, at: Self.now)
            #expect(try await registry.tokens(app: app, user: Self.alice).entries.isEmpty)
            #expect(try await registry.tokens(app: app, user: Self.bob).entries.map(\.token) == [Self.apns(sandbox: nil)])
            #expect(try await registry.tokens(app: app, user: Self.bob).entries.map(\.device) == [moved])

            let install = try Fixture.device(1)
            try await PortFixture.insertInstall(store, device: install, app: app, token: Self.gcm.token.text)
            try await registry.addToken(Self.gcm, app: app, user: Self.alice, at: Self.now)
            #expect(try await store.scalar("SELECT coalesce(push_token, 'none') FROM registrations WHERE device_id = '\(install.text)'")
                    == "none")
            let entries = try await registry.tokens(app: app, user: Self.alice).entries
            #expect(entries.map(\.token) == [Self.gcm] && entries.first?.device != install)
            #expect(try await registry.cospaceCounts(app: app) == (users: 2, tokens: 2))
        }
    }

    @Test("a token declared dead leaves the user's list; adding it again revives the same registration", arguments: Backend.allCases)
    func deadTokens(_ backend: Backend) async throws {
        try await withRegistry(backend) { store, registry in
            let app = PortFixture.app
            try await registry.addToken(Self.apns(), app: app, user: Self.alice, at: Self.now)
            let device = try #require(try await registry.tokens(app: app, user: Self.alice).entries.first?.device)
            try await store.execute("UPDATE registrations SET status = 'Invalid' WHERE device_id = '\(device.text)'")
            #expect(try await registry.tokens(app: app, user: Self.alice).entries.isEmpty)
            #expect(try await registry.cospaceCounts(app: app) == (users: 2, tokens: 1))  // counted, live or not
            try await registry.addToken(Self.apns(), app: app, user: Self.alice, at: Self.now)
            #expect(try await registry.tokens(app: app, user: Self.alice).entries.map(\.device) == [device])
        }
    }

    @Test("adding a token for an unknown app or a revoked user fails and changes nothing", arguments: Backend.allCases)
    func refusedTokens(_ backend: Backend) async throws {
        try await withRegistry(backend) { store, registry in
            await #expect(throws: (any Error).self) {
                try await registry.addToken(Self.gcm, app: PortFixture.unknownApp, user: Self.alice, at: Self.now)
            }
            #expect(try await registry.revokeUser(app: PortFixture.app, user: Self.bob, at: Self.now) == .revoked)
            await #expect(throws: (any Error).self) {
                try await registry.addToken(Self.gcm, app: PortFixture.app, user: Self.bob, at: Self.now)
            }
            // An SDK install's token is not taken by a refused add.
            let install = try Fixture.device(2)
            try await PortFixture.insertInstall(store, device: install, app: PortFixture.app, token: Self.gcm.token.text)
            await #expect(throws: (any Error).self) {
                try await registry.addToken(Self.gcm, app: PortFixture.app, user: Self.bob, at: Self.now)
            }
            #expect(try await store.count("registrations") == 1)
            #expect(try await store.scalar("SELECT push_token FROM registrations") == Self.gcm.token.text)
        }
    }
}
