import Foundation
import Synchronization
import TandemCore
import TandemEngine
import TandemHTTP
import TandemStore
import TandemTestSupport
@testable import TandemAPI

/// Captures PINs the way a phone would see them; can be told to fail.
final class CapturingPinSender: PinSender, VoiceCaller {
    private let state = Mutex<(sms: [PinMessage], calls: [PinMessage], failing: Bool)>(([], [], false))

    func sendPIN(_ message: PinMessage) async throws(PinDeliveryError) {
        guard !state.withLock({ $0.failing }) else { throw PinDeliveryError(Self.smsFailure) }
        state.withLock { $0.sms.append(message) }
    }

    func callPIN(_ message: PinMessage) async throws(PinDeliveryError) {
        guard !state.withLock({ $0.failing }) else { throw PinDeliveryError(Self.voiceFailure) }
        state.withLock { $0.calls.append(message) }
    }

    /// What a failing provider says: the wording of Kannel's sender and the voice webhook over libcurl.
    static let smsFailure = "Kannel unreachable: Failed to connect to 127.0.0.1 port 18670 after 0 ms: Couldn't connect to server"
    static let voiceFailure = "voice webhook unreachable: Failed to connect to 127.0.0.1 port 18671 after 0 ms: Couldn't connect to server"

    var sms: [PinMessage] { state.withLock { $0.sms } }
    var calls: [PinMessage] { state.withLock { $0.calls } }
    func failing(_ failing: Bool) { state.withLock { $0.failing = failing } }
}

/// The device API on the gateway harness's store, scheduler and manual clock, called through its routes
/// with requests signed as an SDK signs them.
final class DeviceAPIHarness: Sendable {
    static let androidAgent = "TandemTest/1.0 (Android 14; Google; Pixel 8; en_US)"
    static let host = "api.tandem.test"

    let gateway: GatewayHarness
    let pins = CapturingPinSender()
    /// The service's log lines, as written.
    let log = LogLines()
    let service: DeviceAPIService
    let router: HTTPRouter
    let metrics = MetricsRegistry()
    let webhook = RecordingWebhookPoster()

    /// `waiting`: the service reads through ``WaitingBackend`` (no read answered without waiting) instead of the store.
    init(waiting: Bool = false, configure: (inout Configuration.DeviceAPI) -> Void = { _ in }) async throws {
        gateway = try await GatewayHarness()
        var api = Configuration.DeviceAPI()
        api.hosts = [Self.host]
        configure(&api)
        let clock = gateway.clock
        let backend = WaitingBackend(store: gateway.store)
        service = DeviceAPIService(registry: waiting ? backend : gateway.store, directory: waiting ? backend : gateway.store,
                                   scheduler: gateway.scheduler,
                                   pinSender: pins, voiceCaller: pins, pinCodec: PinCodec(key: Array(repeating: 7, count: 32)),
                                   now: { clock.now() }, configuration: api,
                                   logger: Logger(minimumLevel: .debug, now: { 0 }, sink: log.append),
                                   metrics: metrics, prefixBlocks: gateway.store, webhookPoster: webhook)
        var router = HTTPRouter()
        DeviceAPIEndpoint(service: service).register(in: &router)
        self.router = router
    }

    func close() async { await gateway.close() }

    var clock: ManualClock { gateway.clock }
    var appA: App { gateway.appA }
    var appB: App { gateway.appB }

    /// The `Authorization` value for this request as an SDK computes it.
    func authorization(_ app: App, method: String, target: String, host: String = DeviceAPIHarness.host,
                       ts: Int64? = nil) -> String {
        let ts = ts ?? clock.now().milliseconds / 1_000
        let mac = MACAuthentication.signature(secret: app.secret.text, method: method, target: target, host: host, timestamp: ts)
        return "MAC kid=\"\(app.key.text)\" ts=\"\(ts)\" mac=\"\(mac)\""
    }

    /// Sends a request through the router. `authorization: nil` signs it for `app`.
    func call(_ method: HTTPMethod, _ target: String, app: App, device: DeviceID? = nil, body: String = "",
              userAgent: String? = DeviceAPIHarness.androidAgent, authorization: String? = nil, omitAuthorization: Bool = false,
              remoteAddress: String = "192.0.2.1", extraHeaders: [(String, String)] = []) async -> Reply {
        var headers: [(String, String)] = [("Host", "127.0.0.1:8080")]
        if !omitAuthorization {
            headers.append(("Authorization", authorization ?? self.authorization(app, method: method.rawValue, target: target)))
        }
        if let userAgent { headers.append(("User-Agent", userAgent)) }
        if let device { headers.append(("DeviceID", device.text)) }
        headers += extraHeaders
        var request = Request(method: method, target: target, headers: HTTPHeaders(headers), body: Array(body.utf8),
                              remoteAddress: remoteAddress)
        guard case .matched(_, let handler, let parameters) = router.match(method, path: request.path) else {
            return Reply(status: 404, headers: HTTPHeaders(), body: [])
        }
        request.pathParameters = parameters
        let response: Response
        switch handler {
        case .sync(let body): response = body(request)
        case .async(let body): response = await body(request)
        case .deferred(let body): response = await withCheckedContinuation { done in body(request, Responder { done.resume(returning: $0) }) }
        }
        return Reply(status: response.status.rawValue, headers: response.headers, body: response.body)
    }

    struct Reply {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var list: [[String: Any]] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] ?? [] }
        var message: String { json["Message"] as? String ?? "" }
    }

    private let installs = Mutex(0)

    /// `POST /v1.0/deviceregistrations` for `app`; returns the new DeviceID. Without `remoteAddress`, each
    /// install calls from its own address (two identical requests from one client in one second are a replay).
    func register(_ app: App, body: String = "{}", remoteAddress: String? = nil) async throws -> DeviceID {
        let remoteAddress = remoteAddress ?? installs.withLock { count in
            count += 1
            return "10.0.\(count / 250).\(count % 250 + 1)"
        }
        let reply = await call(.POST, "/v1.0/deviceregistrations", app: app, body: body, remoteAddress: remoteAddress)
        guard reply.status == 200, let text = reply.json["DeviceID"] as? String, let device = DeviceID(text) else {
            throw HarnessError("registration failed: \(reply.status) \(reply.text)")
        }
        return device
    }

    /// Registers, sets the number, and verifies it with the PIN the phone received.
    func verifiedDevice(_ app: App, msisdn: String, token: String = "token-\(UUID().uuidString)",
                        remoteAddress: String = "192.0.2.1") async throws -> DeviceID {
        let device = try await register(app, body: #"{"PushToken":"\#(token)","Msisdn":"\#(msisdn)"}"#, remoteAddress: remoteAddress)
        guard let pin = pins.sms.last?.pin else { throw HarnessError("no PIN was sent") }
        let reply = await call(.PUT, "/v1.0/deviceregistrations", app: app, device: device, body: #"{"VerificationCode":"\#(pin)"}"#,
                               remoteAddress: remoteAddress)
        guard reply.json["RegistrationStatus"] as? String == "PinVerified" else {
            throw HarnessError("verification failed: \(reply.status) \(reply.text)")
        }
        return device
    }

    /// The wrong PIN for the last one sent.
    func wrongPIN() -> String {
        let pin = pins.sms.last?.pin ?? "0000"
        return pin == "0000" ? "0001" : "0000"
    }
}

/// Records webhook posts (the prefix-block reports) and answers 204.
final class RecordingWebhookPoster: WebhookPoster {
    private let posts = Mutex<[(url: String, body: String)]>([])

    func post(url: String, contentType: String, body: [UInt8]) async -> WebhookResult {
        posts.withLock { $0.append((url, String(decoding: body, as: UTF8.self))) }
        return .delivered(status: 204)
    }

    var received: [(url: String, body: String)] { posts.withLock { $0 } }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
