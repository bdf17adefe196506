import Foundation
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// The backends every contract test runs against.
enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    /// A fresh, empty database with Tandem's schema and one account whose webhook is ``Fixture/webhookURL``.
    /// As in the store tests, a test-only trigger files every message the scheduler writes without an account
    /// (these tests commit deliveries without a sender API's message records) under that account, so that final
    /// reports are queued as they are for a sender's message.
    func open() async throws -> any StoreUnderTest {
        switch self {
        case .sqlite:
            let directory = NSTemporaryDirectory() + "tandem-contract-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let store = try SQLiteUnderTest(path: directory + "/tandem.sqlite")
            try await store.store.write { (db: Connection) throws(StoreError) in
                try db.run("""
                    INSERT INTO accounts (name, product_token, created_at, webhook_url)
                    VALUES ('fixture', '00000000-0000-4000-8000-00000000acc1', 0, ?)
                    """, [.text(Fixture.webhookURL)])
                try db.run("""
                    CREATE TRIGGER fixture_account AFTER INSERT ON messages WHEN NEW.account_id IS NULL
                    BEGIN UPDATE messages SET account_id = (SELECT min(id) FROM accounts) WHERE id = NEW.id; END
                    """)
            }
            return store
        case .postgres:
            let store = try await PostgresUnderTest(conninfo: try await PostgresCluster.shared().freshDatabase("c"))
            try store.admin.execute("INSERT INTO accounts (name, product_token, created_at, webhook_url) VALUES ('fixture', $1, 0, $2)",
                                    ["00000000-0000-4000-8000-00000000acc1", Fixture.webhookURL])
            try store.admin.executeScript("""
                CREATE FUNCTION fixture_account() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.account_id IS NULL THEN NEW.account_id := (SELECT min(id) FROM accounts); END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER fixture_account BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION fixture_account();
                """)
            return store
        }
    }
}

extension Backend {
    /// The backend's name in the test report.
    var description: String { rawValue }
}

/// A backend's delivery store, and a look at the rows it wrote.
protocol StoreUnderTest: Sendable {
    var deliveries: any DeliveryStore { get }
    var outbox: any OutboxStore { get }
    /// The store itself (`Store` or `PGStore`), for the contract tests of the other ports: a test casts it to the
    /// port it covers (`try #require(store.database as? any AppRegistry)`).
    var database: any Sendable { get }
    /// Runs SQL both dialects read alike (literal values, no parameters), through a connection of its own.
    func execute(_ sql: String) async throws
    /// `SELECT count(*) FROM table`, through a connection of its own.
    func count(_ table: String) async throws -> Int
    /// Every outbox payload, in order.
    func outboxPayloads() async throws -> [String]
    /// Closes this store and opens the same database again, as a restarted server does.
    func reopen() async throws -> any StoreUnderTest
    func close() async
}

extension StoreUnderTest {
    /// Row counts of every table the delivery store writes.
    func counts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in ["messages", "deliveries", "delivery_events", "outbox"] { counts[table] = try await count(table) }
        return counts
    }
}

final class SQLiteUnderTest: StoreUnderTest {
    let path: String
    let store: Store
    let sqlite: SQLiteDeliveryStore
    var deliveries: any DeliveryStore { sqlite }
    var outbox: any OutboxStore { SQLiteOutbox(store: store) }
    var database: any Sendable { store }

    init(path: String) throws {
        self.path = path
        store = try Store.open(StoreConfiguration(path: path))
        sqlite = SQLiteDeliveryStore(store: store)
    }

    func execute(_ sql: String) async throws {
        try await store.write { (db: Connection) throws(StoreError) in _ = try db.run(sql) }
    }

    func count(_ table: String) async throws -> Int {
        try store.read { db throws(StoreError) in try db.scalar("SELECT count(*) FROM \(table)", as: Int.self) ?? 0 }
    }

    func outboxPayloads() async throws -> [String] {
        try store.read { db throws(StoreError) in
            var payloads: [String] = []
            for row in try db.query("SELECT payload FROM outbox ORDER BY id") { payloads.append(try row.get(0, as: String.self)) }
            return payloads
        }
    }

    func reopen() async throws -> any StoreUnderTest {
        await store.close()
        return try SQLiteUnderTest(path: path)
    }

    func close() async {
        await store.close()
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
}

final class PostgresUnderTest: StoreUnderTest, @unchecked Sendable {
    let conninfo: String
    let store: PGStore
    let postgres: PGDeliveryStore
    /// The test's own connection, for looking at rows (used by one test task at a time).
    let admin: PGConnection
    var deliveries: any DeliveryStore { postgres }
    var outbox: any OutboxStore { PGOutbox(store: store) }
    var database: any Sendable { store }

    init(conninfo: String) async throws {
        self.conninfo = conninfo
        store = try await PGStore.open(conninfo)
        postgres = PGDeliveryStore(store: store)
        admin = try PGConnection(conninfo)
    }

    func execute(_ sql: String) async throws {
        try admin.execute(sql)
    }

    func count(_ table: String) async throws -> Int {
        Int(try admin.execute("SELECT count(*) FROM \(table)").scalar ?? "") ?? -1
    }

    func outboxPayloads() async throws -> [String] {
        try admin.execute("SELECT payload FROM outbox ORDER BY id").rows.compactMap { $0[0] }
    }

    func reopen() async throws -> any StoreUnderTest {
        await store.close()
        admin.close()
        return try await PostgresUnderTest(conninfo: conninfo)
    }

    func close() async {
        await store.close()
        admin.close()
    }
}
