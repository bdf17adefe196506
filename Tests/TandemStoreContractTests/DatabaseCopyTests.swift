import Foundation
import Testing
import TandemCore
@testable import TandemStore
@testable import TandemPostgres
import TandemTestSupport

/// `tandem db copy`: a SQLite store moved into PostgreSQL holds the same rows and serves the same deliveries.
@Suite("SQLite to PostgreSQL copy")
struct DatabaseCopyTests {
    /// A SQLite store with a bit of everything: in-flight Critical pushes, a final delivery with its report, an SMS
    /// with part ids, a registration, an idempotency key (bytes), a myMSP user with a recipient and an event (whose
    /// trigger queued its push in the outbox).
    private func populatedSQLite() async throws -> (SQLiteUnderTest, [DeliveryKey]) {
        let sqlite = try await Backend.sqlite.open() as! SQLiteUnderTest
        let pushes = try (1...3).map { n in
            try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n, reference: "r\(n)"))
        }
        let rejected = Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(9), content: try Fixture.content(9))
        let sms = Fixture.routed(.sms(SMSRoute(reason: .noAppKey, policy: PolicySet.specDefaults.defaultPolicy)),
                                 msisdn: try Fixture.msisdn(8), content: try Fixture.content(8))
        let keys = try await sqlite.deliveries.commit(inserts: pushes + [rejected, sms], changes: [])
        var submitted = sms.delivery
        _ = try await sqlite.deliveries.commit(inserts: [], changes: [
            Fixture.change(&submitted, key: keys[4], .smsSubmitted(SMSSubmission(provider: "smpp", references: ["p1", "p2"])),
                           at: Fixture.t0 + .seconds(1)),
        ])
        let device = try Fixture.device(1)
        try await sqlite.store.write { (db: Connection) throws(StoreError) in
            try db.run("INSERT INTO apps (account_id, name, app_key, app_secret, created_at) VALUES (1, 'app', ?, 'secret', 0)",
                       [.text(Fixture.appKey.text)])
            try db.run("""
                INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, notifications_enabled, created_at, updated_at, origin)
                VALUES (?, 1, '+31600000001', 'iOS', 'tok\tab\\slash', 'PinVerified', 1, 0, 0, 'mymsp')
                """, [.text(device.text)])
            try db.run("""
                INSERT INTO idempotency_keys (account_id, key, request_digest, status, content_type, body, created_at)
                VALUES (1, 'k-1', 'digest', 200, 'application/json', ?, 5)
                """, [.blob([0, 1, 2, 0xff, 0x0a, 0x5c])])
            try db.run("""
                INSERT INTO mymsp_users (app_id, name, password_salt, password_hash, event_url, created_at, updated_at)
                VALUES (1, 'user', 's', 'h', 'http://127.0.0.1:9/events', 0, 0)
                """)
            try db.run("INSERT INTO mymsp_recipients (user_id, registration_id, spid, created_at, updated_at) VALUES (1, 1, 'fcm', 0, 0)")
            try db.run("UPDATE mymsp_sequence SET last = 1")
            try db.run("""
                INSERT INTO mymsp_events (msgno, user_id, action, recipient_id, destination, subject, created_at)
                VALUES (1, 1, 'ACTION_SUB', 2000001, '', 'line one\nline two', 7)
                """)
        }
        return (sqlite, keys)
    }

    private func copy(_ sqlite: SQLiteUnderTest, to conninfo: String) throws -> PGDatabaseCopy.Report {
        let source = try Connection(path: sqlite.path)
        defer { source.close() }
        let export = SQLiteTableExport(connection: source)
        try export.begin()
        defer { export.end() }
        let target = try PGConnection(conninfo)
        defer { target.close() }
        return try PGDatabaseCopy.copy(from: export, to: target)
    }

    private func emptyDatabase() async throws -> String {
        try await PostgresCluster.shared().freshDatabase("copy")
    }

    @Test("every row arrives; the in-flight deliveries load the same; keys continue after the copied ones; nothing is queued twice")
    func copiesEverything() async throws {
        let (sqlite, keys) = try await populatedSQLite()
        let conninfo = try await emptyDatabase()
        let report = try copy(sqlite, to: conninfo)
        let pg = try await PostgresUnderTest(conninfo: conninfo)

        for table in PGDatabaseCopy.tableOrder {
            #expect(try await pg.count(table) == (try await sqlite.count(table)), "rows of \(table)")
            #expect(report.tables[table] == (try await sqlite.count(table)), "reported rows of \(table)")
        }
        let fromSQLite = try await sqlite.deliveries.loadInFlight()
        let fromPostgres = try await pg.deliveries.loadInFlight()
        #expect(fromPostgres.map(\.key) == fromSQLite.map(\.key) && fromPostgres.count == 4)
        #expect(fromPostgres.map(\.delivery) == fromSQLite.map(\.delivery))
        #expect(fromPostgres.map(\.content) == fromSQLite.map(\.content))
        #expect(fromPostgres.map(\.recipient) == fromSQLite.map(\.recipient))
        #expect(try await pg.deliveries.deliveryKey(smsProvider: "smpp", reference: "p2") == keys[4])
        #expect(try await pg.outboxPayloads() == (try await sqlite.outboxPayloads()), "the report and the myMSP event, once each")
        #expect(try pg.admin.execute("SELECT push_token, notifications_enabled FROM registrations").rows == [["tok\tab\\slash", "t"]])
        #expect(try pg.admin.execute("SELECT encode(body, 'hex') FROM idempotency_keys").scalar == "000102ff0a5c")
        #expect(try pg.admin.execute("SELECT subject FROM mymsp_events").scalar == "line one\nline two")
        #expect(try pg.admin.execute("SELECT last FROM mymsp_sequence").scalar == "1")

        // New rows get keys after the copied ones; the myMSP trigger is on again.
        let next = try await pg.deliveries.commit(inserts: [try Fixture.pushed(to: [Fixture.device(7)], msisdn: Fixture.msisdn(7),
                                                                               content: Fixture.content(7))], changes: [])
        #expect(next.first.map { $0 > keys.max()! } == true)
        try pg.admin.execute("""
            INSERT INTO mymsp_events (msgno, user_id, action, recipient_id, destination, subject, created_at)
            VALUES (2, 1, 'ACTION_UNSUB', 2000001, '', 's', 8)
            """)
        #expect(try await pg.count("outbox") == (try await sqlite.count("outbox")) + 1)
        #expect(try pg.admin.execute("""
            INSERT INTO mymsp_recipients (user_id, registration_id, spid, created_at, updated_at)
            VALUES (1, (SELECT id FROM registrations), 'apns', 0, 0) ON CONFLICT (registration_id) DO NOTHING RETURNING recipient_id
            """).rows.isEmpty)
        await pg.close()
        await sqlite.close()
    }

    @Test("a target that holds data, or a source table this build does not know, is refused and nothing is written")
    func refusals() async throws {
        let (sqlite, _) = try await populatedSQLite()
        let conninfo = try await emptyDatabase()
        _ = try copy(sqlite, to: conninfo)
        #expect(throws: PGDatabaseCopy.Failure.self) { try copy(sqlite, to: conninfo) }

        try await sqlite.execute("CREATE TABLE extra (id INTEGER PRIMARY KEY)")
        let fresh = try await emptyDatabase()
        #expect(throws: PGDatabaseCopy.Failure.self) { try copy(sqlite, to: fresh) }
        let check = try PGConnection(fresh)
        #expect(try check.execute("SELECT count(*) FROM accounts").scalar == "0")
        check.close()
        await sqlite.close()
    }
}
