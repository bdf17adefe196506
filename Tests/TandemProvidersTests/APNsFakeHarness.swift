import Foundation
import Synchronization
import TandemCore
@testable import TandemProviders

/// One APNs fake (`Tests/peers/apns_fake.py`) with its own certificate and `.p8` key, made at test time,
/// plus what a sender needs to push to it.
final class APNsFakeHarness: @unchecked Sendable {
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let topic = "com.example.tandem"

    let directory: TemporaryDirectory
    let certificate: TestCertificate
    let keyPath: String
    let logPath: String
    let fake: PeerProcess
    let app = AppKey(testGUID())
    let clock: PushTestClock
    let logs = LogCapture()

    /// `clockOffset`: how far before real time the test clock starts (the fake refuses an `iat` older
    /// than an hour or in the future).
    init(delayMilliseconds: Int = 20, clockOffset: Duration = .seconds(50 * 60)) async throws {
        directory = try TemporaryDirectory()
        certificate = try TestCertificate.make(in: directory, name: "apns")
        keyPath = try OpenSSLTool.generateKey(.ec("P-256"), at: directory.path + "/AuthKey_\(Self.keyID).p8")
        let publicKey = try OpenSSLTool.publicKey(of: keyPath, to: directory.path + "/auth.pub")
        logPath = directory.path + "/apns.jsonl"
        self.delayMilliseconds = delayMilliseconds
        fake = try await PeerProcess.pythonPeer("apns_fake.py", arguments: [
            "--cert", certificate.certPath, "--key", certificate.keyPath, "--auth-key", publicKey,
            "--key-id", Self.keyID, "--team-id", Self.teamID, "--topic", Self.topic,
            "--log", logPath, "--delay-ms", String(delayMilliseconds)])
        clock = PushTestClock(realTimeMinus: clockOffset)
    }

    private let delayMilliseconds: Int

    /// A second fake with the same keys, logging to `log` (e.g. a separate sandbox environment).
    func anotherFake(log: String) async throws -> PeerProcess {
        try await PeerProcess.pythonPeer("apns_fake.py", arguments: [
            "--cert", certificate.certPath, "--key", certificate.keyPath, "--auth-key", keyPath,
            "--key-id", Self.keyID, "--team-id", Self.teamID, "--topic", Self.topic,
            "--log", log, "--delay-ms", String(delayMilliseconds)])
    }

    var url: String { "https://127.0.0.1:\(fake.port)" }

    func credentials(sandbox: Bool = false, keySource: APNsKeySource? = nil) -> APNsCredentials {
        APNsCredentials(keySource: keySource ?? .file(keyPath), keyID: Self.keyID, teamID: Self.teamID,
                        topic: Self.topic, sandbox: sandbox)
    }

    func settings(_ adjust: (inout APNsSender.Settings) -> Void = { _ in }) -> APNsSender.Settings {
        var settings = APNsSender.Settings()
        settings.productionURL = url
        settings.sandboxURL = url
        settings.client.caFile = certificate.certPath
        adjust(&settings)
        return settings
    }

    func sender(credentials: APNsCredentials? = nil, sandboxURL: String? = nil, environment: @escaping @Sendable (String) -> String? = { _ in nil },
                adjust: (inout APNsSender.Settings) -> Void = { _ in }) throws -> APNsSender {
        var settings = settings(adjust)
        if let sandboxURL { settings.sandboxURL = sandboxURL }
        return try APNsSender(settings: settings,
                       credentials: StaticPushCredentials([app: AppPushCredentials(apns: credentials ?? self.credentials())]),
                       clock: clock, logger: logs.logger, environment: environment)
    }

    /// A push of `body` to one iOS device per token, for this harness's app.
    func push(_ tokens: [String], key: Int64 = 42, policy: Policy = .specOTP, body: String = "Your code is 123456",
              app: AppKey?? = .none, messageID: GUID = testGUID()) -> PushRequest {
        let targets = tokens.map { PushTarget(deviceID: DeviceID(testGUID()), platform: .iOS, token: PushToken($0)!) }
        return PushRequest(key: DeliveryKey(key), recipient: .msisdn(MSISDN("+31612345678")!), targets: targets, policy: policy,
                           content: MessageContent(messageID: messageID, sender: "Tandem", body: body, reference: nil,
                                                   app: app ?? self.app))
    }

    /// The fake's request log so far.
    func requests() throws -> [[String: JSONValue]] { try jsonLines(at: logPath) }
}

/// Collects log lines, to check what is (not) logged.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(minimumLevel: .debug, now: { 0 }, sink: { [self] line in self.lines.withLock { $0.append(line) } })
    }

    var all: [String] { lines.withLock { $0 } }
}

extension Dictionary where Key == String, Value == JSONValue {
    func header(_ name: String) -> String? { self["headers"]?[name]?.string }
}
