import Foundation
import TandemCore
@testable import TandemProviders

/// One FCM fake (`Tests/peers/fcm_fake.py`) with its own certificate and service account (an RSA key
/// made at test time), plus what a sender needs to push to it.
final class FCMFakeHarness: @unchecked Sendable {
    static let projectID = "tandem-test"
    static let clientEmail = "tandem@tandem-test.iam.gserviceaccount.com"
    static let keyID = "0123456789abcdef0123456789abcdef01234567"

    let directory: TemporaryDirectory
    let certificate: TestCertificate
    let privateKeyPEM: String
    let logPath: String
    let fake: PeerProcess
    let serviceAccountPath: String
    let app = AppKey(testGUID())
    let clock: PushTestClock
    let logs = LogCapture()

    /// `clockOffset`: how far before real time the test clock starts (the fake refuses assertions that
    /// have expired or were issued in the future by its own clock).
    init(clockOffset: Duration = .seconds(57 * 60)) async throws {
        directory = try TemporaryDirectory()
        certificate = try TestCertificate.make(in: directory, name: "fcm")
        let keyPath = try OpenSSLTool.generateKey(.rsa(2048), at: directory.path + "/account-key.pem")
        privateKeyPEM = try String(contentsOfFile: keyPath, encoding: .utf8)
        let publicKey = try OpenSSLTool.publicKey(of: keyPath, to: directory.path + "/account.pub")
        logPath = directory.path + "/fcm.jsonl"
        fake = try await PeerProcess.pythonPeer("fcm_fake.py", arguments: [
            "--cert", certificate.certPath, "--key", certificate.keyPath, "--public-key", publicKey,
            "--client-email", Self.clientEmail, "--key-id", Self.keyID, "--project-id", Self.projectID,
            "--log", logPath])
        serviceAccountPath = directory.path + "/service-account.json"
        clock = PushTestClock(realTimeMinus: clockOffset)
        try writeServiceAccount(to: serviceAccountPath)
    }

    var url: String { "https://127.0.0.1:\(fake.port)" }

    /// Writes a service-account file as Google issues them (with members Tandem does not use).
    func writeServiceAccount(to path: String, clientEmail: String = FCMFakeHarness.clientEmail) throws {
        let members: [String: String] = [
            "type": "service_account", "project_id": Self.projectID, "private_key_id": Self.keyID,
            "private_key": privateKeyPEM, "client_email": clientEmail, "client_id": "123456789012345678901",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": url + "/token",
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/tandem",
            "universe_domain": "googleapis.com",
        ]
        try JSONEncoder().encode(members).write(to: URL(fileURLWithPath: path))
    }

    func sender(serviceAccount: String? = nil, adjust: (inout FCMSender.Settings) -> Void = { _ in }) throws -> FCMSender {
        var settings = FCMSender.Settings()
        settings.baseURL = url
        settings.client.caFile = certificate.certPath
        settings.client.maxConnectionsPerHost = 4
        adjust(&settings)
        let credentials = AppPushCredentials(fcm: FCMCredentials(serviceAccountPath: serviceAccount ?? serviceAccountPath))
        return try FCMSender(settings: settings, credentials: StaticPushCredentials([app: credentials]), clock: clock,
                             logger: logs.logger)
    }

    /// A push of `body` to one Android device per token, for this harness's app.
    func push(_ tokens: [String], key: Int64 = 42, policy: Policy = .specOTP, body: String = "Your code is 123456",
              app: AppKey?? = .none, messageID: GUID = testGUID()) -> PushRequest {
        let targets = tokens.map { PushTarget(deviceID: DeviceID(testGUID()), platform: .android, token: PushToken($0)!) }
        return PushRequest(key: DeliveryKey(key), recipient: .msisdn(MSISDN("+31612345678")!), targets: targets, policy: policy,
                           content: MessageContent(messageID: messageID, sender: "Tandem", body: body, reference: nil,
                                                   app: app ?? self.app))
    }

    func requests() throws -> [[String: JSONValue]] { try jsonLines(at: logPath) }
    func tokenRequests() throws -> [[String: JSONValue]] { try requests().filter { $0["kind"]?.string == "token" } }
    func sends() throws -> [[String: JSONValue]] { try requests().filter { $0["kind"]?.string == "send" } }
}
