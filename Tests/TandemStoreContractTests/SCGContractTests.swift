import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every backend's SCG ports (``SCGTokenStore``, ``SCGMessageStore``, ``AppSenderIDStore``) must do: each test
/// runs against SQLite and PostgreSQL.
@Suite("SCG stores contract")
struct SCGContractTests {
    static let digest = [UInt8](repeating: 0xAB, count: 32)
    static let otherDigest = [UInt8](repeating: 0x01, count: 32)

    @Test("tokens: stored for an account, listed oldest first, revoked once and only by their account; a revoked one grants nothing",
          arguments: Backend.allCases)
    func tokens(_ backend: Backend) async throws {
        let store = try await backend.open()
        try await PortFixture.insertApps(store)
        let tokens = try #require(store.database as? any SCGTokenStore)
        let unknown = ProductToken(GUID("00000000-0000-4000-8000-0000000000ee")!)
        #expect(try await tokens.insertSCGToken(account: unknown, digest: Self.digest, label: "x", createdAt: Fixture.t0) == nil)
        #expect(try await tokens.scgTokens(account: unknown) == nil)
        #expect(try await tokens.scgTokens(account: PortFixture.account) == [])

        let first = try #require(try await tokens.insertSCGToken(account: PortFixture.account, digest: Self.digest, label: "ci",
                                                                 createdAt: Fixture.t0))
        let second = try #require(try await tokens.insertSCGToken(account: PortFixture.account, digest: Self.otherDigest, label: "",
                                                                  createdAt: Fixture.t0 + .seconds(1)))
        #expect(first == SCGTokenInfo(id: first.id, account: PortFixture.account, label: "ci", createdAt: Fixture.t0, revokedAt: nil))
        #expect(second.id > first.id)
        // A digest is stored once, whichever account asks.
        await #expect(throws: (any Error).self) {
            _ = try await tokens.insertSCGToken(account: PortFixture.otherAccount, digest: Self.digest, label: "", createdAt: Fixture.t0)
        }
        #expect(try await tokens.scgTokens(account: PortFixture.account)?.map(\.id) == [first.id, second.id])
        #expect(try await tokens.scgTokens(account: PortFixture.otherAccount) == [])

        let grant = try #require(try await tokens.scgTokenGrant(digest: Self.digest))
        #expect(grant.digest == Self.digest && grant.account.productToken == PortFixture.account && grant.account.name == "fixture")
        #expect(!grant.account.disabled)
        #expect(try await tokens.scgTokenGrant(digest: [UInt8](repeating: 0x02, count: 32)) == nil)

        #expect(try await !tokens.revokeSCGToken(account: PortFixture.otherAccount, id: first.id, at: Fixture.t0 + .seconds(2)))
        #expect(try await tokens.revokeSCGToken(account: PortFixture.account, id: first.id, at: Fixture.t0 + .seconds(2)))
        #expect(try await !tokens.revokeSCGToken(account: PortFixture.account, id: first.id, at: Fixture.t0 + .seconds(3)))
        #expect(try await tokens.scgTokenGrant(digest: Self.digest) == nil)
        #expect(try await tokens.scgTokens(account: PortFixture.account)?.map(\.revokedAt) == [Fixture.t0 + .seconds(2), nil])

        // What was answered is there after a restart.
        let restarted = try await store.reopen()
        let reopened = try #require(restarted.database as? any SCGTokenStore)
        #expect(try await reopened.scgTokens(account: PortFixture.account)?.map(\.revokedAt) == [Fixture.t0 + .seconds(2), nil])
        // A disabled account's token still names it (the caller refuses it).
        try await restarted.execute("UPDATE accounts SET disabled = \(backend == .sqlite ? "1" : "true") WHERE product_token = '\(PortFixture.account.text)'")
        #expect(try await reopened.scgTokenGrant(digest: Self.otherDigest)?.account.disabled == true)
        await restarted.close()
    }

    @Test("messages: only the account's visible SCG messages, newest first, paged with their total; hidden ones are gone",
          arguments: Backend.allCases)
    func messages(_ backend: Backend) async throws {
        let store = try await backend.open()
        try await PortFixture.insertApps(store)
        let messages = try #require(store.database as? any SCGMessageStore)
        let g = try (0...4).map { try Fixture.guid($0) }
        let records = try (1...4).map { n in
            try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n, reference: "ref-\(n)"))
        }
        let keys = try await store.deliveries.commit(inserts: records, changes: [])
        // Messages 1–3 came through SCG; 4 through another API.
        try await store.execute("UPDATE messages SET api = 'scg' WHERE message_id <> '\(g[4].text)'")

        let one = try #require(try await messages.scgMessage(account: PortFixture.account, id: g[1]))
        #expect(one.id == g[1] && one.reference == "ref-1" && one.api == "scg" && one.sender == "Tandem")
        #expect(one.recipients.map(\.key) == [keys[0]] && one.recipients.first?.delivery == records[0].delivery)
        #expect(one.recipients.first?.events.map(\.kind) == [records[0].event.logKind])
        #expect(try await messages.scgMessage(account: PortFixture.account, id: g[4]) == nil)
        #expect(try await messages.scgMessage(account: PortFixture.otherAccount, id: g[1]) == nil)

        let page = try await messages.scgMessages(account: PortFixture.account, offset: 1, limit: 1)
        #expect(page.total == 3 && page.messages.map(\.id) == [g[2]])
        #expect(try await messages.scgMessages(account: PortFixture.account, offset: 0, limit: 10).messages.map(\.id)
                == [g[3], g[2], g[1]])
        #expect(try await messages.scgMessages(account: PortFixture.otherAccount, offset: 0, limit: 10).total == 0)

        #expect(try await !messages.hideSCGMessage(account: PortFixture.otherAccount, id: g[2]))
        #expect(try await !messages.hideSCGMessage(account: PortFixture.account, id: g[4]))
        #expect(try await messages.hideSCGMessage(account: PortFixture.account, id: g[2]))
        #expect(try await !messages.hideSCGMessage(account: PortFixture.account, id: g[2]))
        #expect(try await messages.scgMessage(account: PortFixture.account, id: g[2]) == nil)
        let rest = try await messages.scgMessages(account: PortFixture.account, offset: 0, limit: 10)
        #expect(rest.total == 2 && rest.messages.map(\.id) == [g[3], g[1]])
        await store.close()
    }

    @Test("sender ids: set, cleared, refused when another app of the account has it, unknown apps say so", arguments: Backend.allCases)
    func senderIDs(_ backend: Backend) async throws {
        let store = try await backend.open()
        try await PortFixture.insertApps(store)
        let ids = try #require(store.database as? any AppSenderIDStore)
        #expect(try await ids.changeSenderID(app: PortFixture.unknownApp, to: "Acme") == .unknownApp)
        #expect(try await ids.changeSenderID(app: PortFixture.app, to: "Acme") == .set)
        #expect(try await ids.changeSenderID(app: PortFixture.app, to: "Acme") == .set)  // its own already
        #expect(try await ids.changeSenderID(app: PortFixture.otherApp, to: "Acme") == .takenBy(PortFixture.app))
        #expect(try await store.scalar("SELECT coalesce(sender_id, '-') FROM apps WHERE app_key = '\(PortFixture.otherApp.text)'") == "-")
        #expect(try await ids.changeSenderID(app: PortFixture.app, to: nil) == .set)
        #expect(try await ids.changeSenderID(app: PortFixture.otherApp, to: "Acme") == .set)
        #expect(try await store.scalar("SELECT coalesce(sender_id, '-') FROM apps WHERE app_key = '\(PortFixture.app.text)'") == "-")
        await store.close()
    }
}
