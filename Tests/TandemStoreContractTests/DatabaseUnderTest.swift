import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// A fresh store of `backend` with two accounts, "Acme" and "Globex", and an app each ("Acme App" OTP, then
/// "Globex App" Default) — after the fixture account every contract store has (`Backend.open()`).
struct Directory {
    let store: any StoreUnderTest
    let database: any TandemDatabase
    let acme: Account
    let globex: Account
    let first: App
    let second: App

    static func open(_ backend: Backend) async throws -> Directory {
        let store = try await backend.open()
        let database = try #require(store.database as? any TandemDatabase)
        let acme = Account(name: "Acme", productToken: ProductToken(try Fixture.guid(0xA1)), createdAt: 1)
        let globex = Account(name: "Globex", productToken: ProductToken(try Fixture.guid(0xA2)), createdAt: 2)
        try await database.insert(acme)
        try await database.insert(globex)
        let first = App(key: AppKey(try Fixture.guid(0x1)), secret: try #require(AppSecret("first-secret")), name: "Acme App",
                        account: acme.productToken, defaultMessageType: .otp, createdAt: 10)
        let second = App(key: AppKey(try Fixture.guid(0x2)), secret: try #require(AppSecret("second-secret")),
                         name: "Globex App", account: globex.productToken, defaultMessageType: .default, createdAt: 20)
        try await database.insert(first)
        try await database.insert(second)
        return Directory(store: store, database: database, acme: acme, globex: globex, first: first, second: second)
    }

    func close() async { await store.close() }

    /// A key no app, account or device has.
    static func unknown() throws -> GUID { try Fixture.guid(0x99) }

    /// Commits message `n` of `account` through `app` (its request's row, as a sender API stores it) pushed to
    /// `msisdn`'s installs, and returns its delivery's key.
    @discardableResult
    func send(_ n: Int, account: Account? = nil, app: App? = nil, sender: String = "Tandem", reference: String? = nil,
              msisdn: MSISDN, createdAt: Timestamp = Fixture.t0, spool: [MSISDN] = []) async throws -> DeliveryKey {
        let content = MessageContent(messageID: try Fixture.guid(n), sender: sender, body: "message \(n)", reference: reference,
                                     app: app?.key)
        let record = MessageRecord(content: content, account: (account ?? acme).productToken, appKey: app?.key, bodyType: "Auto",
                                   messageType: .default, allowedChannels: .all, validUntil: nil, customGroupings: [],
                                   dcs: nil, richContent: nil, fallbackFor: nil, createdAt: createdAt)
        let spools = spool.isEmpty ? [] : [RecipientSpool(messageID: content.messageID, recipients: spool)]
        let insert = try Fixture.pushed(to: [Fixture.device(n)], msisdn: msisdn, content: content, at: createdAt)
        let keys = try await store.deliveries.commit(requests: [AcceptedRequest(messages: [record], spools: spools)],
                                                     inserts: [insert], changes: [])
        return try #require(keys.first)
    }
}

extension StoreUnderTest {
    /// The first column of every row of `sql` (both dialects alike), as text; through a connection of its own.
    func texts(_ sql: String) async throws -> [String?] {
        if let sqlite = self as? SQLiteUnderTest {
            return try sqlite.store.read { db throws(StoreError) in
                try db.query(sql).map { (row) throws(StoreError) in try row.get(0, as: String?.self) }
            }
        }
        let postgres = try #require(self as? PostgresUnderTest)
        return try postgres.admin.execute(sql).rows.map { $0[0] }
    }
}

/// Whether `error` is a uniqueness violation on either backend.
func isUniqueViolation(_ error: any Error) -> Bool {
    if let error = error as? StoreError { return error.isUniqueViolation }
    if case .server(let state, _, _) = error as? PGError { return state == "23505" }
    return false
}
