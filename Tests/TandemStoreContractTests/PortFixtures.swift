import Foundation
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// Apps and accounts for the port contract tests, inserted with SQL both dialects read alike (the account and app
/// ports are another part's; these tests need only rows).
enum PortFixture {
    /// The account ``Backend/open()`` inserts.
    static let account = ProductToken(GUID("00000000-0000-4000-8000-00000000acc1")!)
    static let otherAccount = ProductToken(GUID("00000000-0000-4000-8000-00000000acc2")!)
    static let app = AppKey(GUID("00000000-0000-4000-8000-0000000000a1")!)
    static let otherApp = AppKey(GUID("00000000-0000-4000-8000-0000000000a2")!)
    static let unknownApp = AppKey(GUID("00000000-0000-4000-8000-0000000000ff")!)

    /// A second account, and two apps of the fixture account.
    static func insertApps(_ store: any StoreUnderTest) async throws {
        try await store.execute("""
            INSERT INTO accounts (name, product_token, created_at) VALUES ('other', '\(otherAccount.text)', 1)
            """)
        for key in [app, otherApp] {
            try await store.execute("""
                INSERT INTO apps (account_id, name, app_key, app_secret, created_at)
                VALUES ((SELECT min(id) FROM accounts), 'App', '\(key.text)', 'secret-\(key.text)', 2)
                """)
        }
    }

    /// An SDK install (origin `cm`) of `app` holding `token`.
    static func insertInstall(_ store: any StoreUnderTest, device: DeviceID, app: AppKey, token: String) async throws {
        try await store.execute("""
            INSERT INTO registrations (device_id, app_id, platform, push_token, created_at, updated_at)
            VALUES ('\(device.text)', (SELECT id FROM apps WHERE app_key = '\(app.text)'), 'Android', '\(token)', 1, 1)
            """)
    }
}

extension StoreUnderTest {
    /// The first column of the first row of `sql`, as text (booleans as `0`/`1` on both: write the SQL so).
    func scalar(_ sql: String) async throws -> String? {
        switch self {
        case let sqlite as SQLiteUnderTest:
            return try sqlite.store.read { db throws(StoreError) in try db.scalar(sql, as: String.self) }
        case let postgres as PostgresUnderTest:
            return try postgres.admin.execute(sql).scalar
        default:
            return nil
        }
    }
}

