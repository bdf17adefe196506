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

/// ``BWMIRegistry`` with every read `async`, as the port becomes (issue 26): what both stores serve today. The
/// tests go through it until `PGStore` declares the port itself.
protocol BWMIPort: Sendable {
    func bwmiSettings(app: AppKey) async throws -> BWMIAppSettings
    func bwmiApp(key: AppKey) async throws -> BWMIApp?
    func setBWMISettings(app: AppKey, _ settings: BWMIAppSettings) async throws -> Bool
    func registerBWMIDevice(app: AppKey, platform: Platform, token: PushToken, phone: MSISDN?, email: String?,
                            at: Timestamp) async throws -> BWMIDevice
    func deregisterBWMIDevice(app: AppKey, token: PushToken, at: Timestamp) async throws -> Bool
    func bwmiDevice(app: AppKey, token: PushToken) async throws -> BWMIDevice?
    func bwmiDevices(app: AppKey, phone: MSISDN) async throws -> [BWMIDevice]
    func bwmiDevices(app: AppKey, email: String) async throws -> [BWMIDevice]
    func liveBWMICount(device: BWMIDevice, at now: Timestamp) async throws -> Int
    func liveBWMINotifications(device: BWMIDevice, at now: Timestamp) async throws -> [BWMINotification]
    func recordBWMINotifications(_ notifications: [BWMINotification]) async throws
    func acknowledgeBWMI(delivery: DeliveryKey, device: BWMIDevice, at now: Timestamp, hybrid: Bool) async throws -> BWMIAcknowledgement
}

extension Store: BWMIPort {}
extension PGStore: BWMIPort {}

/// ``MyMSPDirectory`` with every read `async` (see ``BWMIPort``), and `mymspRecipients(app:)`.
protocol MyMSPPort: Sendable {
    func mymspUser(name: String) async throws -> MyMSPUser?
    func mymspUser(app: AppKey) async throws -> MyMSPUser?
    func setMyMSPUser(app: AppKey, name: String, passwordSalt: String, passwordHash: String, eventURL: String?,
                      at: Timestamp) async throws -> Bool
    func mymspRecipient(user: Int64, id: Int64) async throws -> MyMSPRecipient?
    func mymspSubscribe(user: MyMSPUser, recipient: Int64?, provider: MyMSPServiceProvider, key: PushToken,
                        subject: String, destination: String, at: Timestamp) async throws -> MyMSPRecipientChange
    func mymspUpdateKey(user: MyMSPUser, recipient: Int64, provider: MyMSPServiceProvider, key: PushToken,
                        at: Timestamp) async throws -> MyMSPRecipientChange
    func mymspUnsubscribe(user: MyMSPUser, recipient: Int64, deactivate: Bool, subject: String, destination: String,
                          at: Timestamp) async throws -> Bool?
    func mymspReserveNumbers(_ count: Int) async throws -> ClosedRange<Int64>
    func mymspActiveRecipients(user: Int64, ids: [Int64], groups: [String]) async throws -> [MyMSPRecipient]
    func mymspNotifications(device: DeviceID, after: Int64, sentAfter: Timestamp?, limit: Int) async throws -> [MyMSPNotification]
    func mymspEvents(user: Int64, after: Int64, limit: Int) async throws -> [MyMSPEvent]
    func setMyMSPGroup(user: Int64, name: String, shortName: String?, recipients: [Int64], at: Timestamp) async throws
    func deleteMyMSPGroup(user: Int64, name: String) async throws -> Bool
    func mymspGroups(user: Int64) async throws -> [MyMSPGroup]
    func purgeMyMSPEvents(before: Timestamp) async throws -> Int
    func mymspRecipients(app: AppKey) async throws -> [MyMSPRecipient]
}

extension Store: MyMSPPort {}
extension PGStore: MyMSPPort {}
