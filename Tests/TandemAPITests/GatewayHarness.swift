import Foundation
import TandemCore
import TandemEngine
import TandemStore
import TandemTestSupport
@testable import TandemAPI

/// A gateway on a real SQLite store and scheduler, with recording providers and a manual clock.
final class GatewayHarness: Sendable {
    static let t0 = Timestamp(milliseconds: 1_790_000_000_000)

    let directory: String
    let store: Store
    let clock = ManualClock(GatewayHarness.t0)
    let push: RecordingPushSender
    let sms = RecordingSMSSender()
    let scheduler: Scheduler
    let service: CMGatewayService
    let intake: MessageIntake
    let accountA: Account
    let accountB: Account
    let appA: App
    let appB: App

    let drainer: SpoolDrainer

    /// `spoolThreshold`: messages with at least this many recipients are spooled; the drainer's loop is not
    /// running — tests start spooled recipients themselves (`drainer.drainAll()`).
    /// `holdPush`: pushes wait in the recording sender until `push.release()`.
    init(spoolThreshold: Int? = nil, spoolChunk: Int = 256, holdPush: Bool = false) async throws {
        push = RecordingPushSender(hold: holdPush)
        directory = NSTemporaryDirectory() + "tandem-api-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try Store.open(StoreConfiguration(path: directory + "/tandem.sqlite"))
        var generator = SystemRandomNumberGenerator()
        accountA = Account(name: "A", productToken: .random(using: &generator), createdAt: 0)
        accountB = Account(name: "B", productToken: .random(using: &generator), createdAt: 0)
        appA = App(key: .random(using: &generator), secret: AppSecret.random(using: &generator), name: "App A",
                   account: accountA.productToken, defaultMessageType: .default, createdAt: 0)
        appB = App(key: .random(using: &generator), secret: AppSecret.random(using: &generator), name: "App B",
                   account: accountB.productToken, defaultMessageType: .critical, createdAt: 0)
        for account in [accountA, accountB] { try await store.insert(account) }
        for app in [appA, appB] { try await store.insert(app) }
        let dispatcher = Dispatcher(push: push, sms: sms)
        scheduler = Scheduler(store: SQLiteDeliveryStore(store: store), dispatcher: dispatcher, clock: clock)
        let clock = clock
        drainer = SpoolDrainer(spool: store, directory: store, scheduler: scheduler, policies: .specDefaults,
                               now: { clock.now() }, configuration: SpoolDrainer.Configuration(chunk: spoolChunk))
        intake = MessageIntake(directory: store, addresses: store, keys: store, ledger: store, scheduler: scheduler, drainer: drainer, policies: .specDefaults,
                               now: { clock.now() }, configuration: MessageIntake.Configuration(spoolThreshold: spoolThreshold))
        service = CMGatewayService(intake: intake, ledger: store,
                                   authenticator: ProductTokenAuthenticator(directory: store, now: { clock.now() }))
        self.dispatcher = dispatcher
    }

    let dispatcher: Dispatcher

    func close() async {
        await store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A verified, pushable registration of `app` for `msisdn`.
    @discardableResult
    func verifiedDevice(_ app: App, msisdn: String, token: String = "token-\(UUID().uuidString)") async throws -> DeviceID {
        var generator = SystemRandomNumberGenerator()
        let device = DeviceID.random(using: &generator)
        try await store.write { (db: Connection) throws(StoreError) in
            try db.run("""
                INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
                VALUES (?, (SELECT id FROM apps WHERE app_key = ?), ?, 'iOS', ?, 'PinVerified', 0, 0)
                """, [.text(device.text), .text(app.key.text), .text(msisdn), .text(token)])
        }
        return device
    }

    func submitJSON(_ json: String, headerToken: String? = nil, idempotencyKey: String? = nil) async -> CMGatewayService.Reply {
        await service.submit(.init(format: .json, body: Array(json.utf8), headerToken: headerToken,
                                   idempotencyKey: idempotencyKey, target: "POST /v1.0/message"))
    }

    func submitXML(_ xml: String) async -> CMGatewayService.Reply {
        await service.submit(.init(format: .xml, body: Array(xml.utf8), target: "POST /gateway.ashx"))
    }

    func count(_ sql: String) throws -> Int {
        try store.read { (db: Connection) throws(StoreError) in try db.scalar(sql, as: Int.self) ?? 0 }
    }

    func rows(_ sql: String) throws -> [[SQLValue]] {
        try store.read { (db: Connection) throws(StoreError) in try db.query(sql).map(\.values) }
    }

    /// The JSON `msg` list wrapped in a MESSAGES request for `account`.
    static func request(token: ProductToken, _ messages: String...) -> String {
        """
        {"messages":{"authentication":{"producttoken":"\(token.text)"},"msg":[\(messages.joined(separator: ","))]}}
        """
    }
}

extension CMGatewayService.Reply {
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    var lines: [[String: Any]] { json["messages"] as? [[String: Any]] ?? [] }
}
