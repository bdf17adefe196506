import TandemCore
import TandemEngine
import TandemHTTP

/// The app REST API v1.0 the SDKs talk to (spec: "Hybrid Messaging API"): device registrations, MSISDN
/// verification by PIN, the app inbox and delivery/read receipts.
///
/// Every request passes, in order: the MAC signature (401: missing, garbled, unknown `kid`, bad `mac`,
/// `ts` outside the window, replayed), the `User-Agent` (400 unless it names iOS, Android or
/// WindowsPhone), and — on every route but `POST /v1.0/deviceregistrations` — the `DeviceID` header
/// (400 when missing, unknown, or another app's). Errors are `{"Message":"…"}`.
///
/// Tenant isolation: an install sees and acknowledges only messages sent through its own app to the
/// number it verified; an `UpdateID` outside that is "not found", whether or not it exists.
public final class DeviceAPIService: Sendable {
    let deliveryMetrics: DeliveryMetrics
    let registry: any DeviceRegistry
    let scheduler: Scheduler
    let pinSender: any PinSender
    let voiceCaller: any VoiceCaller
    let pinCodec: PinCodec
    let now: @Sendable () -> Timestamp
    let configuration: TandemCore.Configuration.DeviceAPI
    let logger: Logger
    let keyring: AppKeyring
    let replayGuard: ReplayGuard
    let signatures = SignatureCache()
    let limits: AbuseLimits
    let protection: ProtectionOutlets

    /// - Parameters:
    ///   - metrics: where the PIN SMS refusals and prefix blocks are counted.
    ///   - deliveryMetrics: where PIN SMS sent and installs verified are counted.
    ///   - prefixBlocks: where prefix blocks are kept across restarts (nil: memory only).
    ///   - webhookPoster: posts new prefix blocks to `deviceAPI.protection.webhook`, when configured.
    public init(registry: any DeviceRegistry, directory: any SenderDirectory, scheduler: Scheduler, pinSender: any PinSender,
                voiceCaller: any VoiceCaller, pinCodec: PinCodec, now: @escaping @Sendable () -> Timestamp,
                configuration: TandemCore.Configuration.DeviceAPI = .init(), logger: Logger = .discarding,
                metrics: MetricsRegistry = MetricsRegistry(), prefixBlocks: (any PrefixBlockStore)? = nil,
                webhookPoster: (any WebhookPoster)? = nil, deliveryMetrics: DeliveryMetrics = .discarding) {
        self.registry = registry
        self.deliveryMetrics = deliveryMetrics
        self.scheduler = scheduler
        self.pinSender = pinSender
        self.voiceCaller = voiceCaller
        self.pinCodec = pinCodec
        self.now = now
        self.configuration = configuration
        self.logger = logger
        keyring = AppKeyring(directory: directory)
        replayGuard = ReplayGuard(window: configuration.timestampWindow)
        limits = AbuseLimits(configuration.limits, protection: configuration.protection)
        protection = ProtectionOutlets(metrics: metrics, store: prefixBlocks, webhookPoster: webhookPoster,
                                       webhookURL: configuration.protection.webhook)
    }

    /// A request that passed the signature and `User-Agent` checks.
    struct Caller: Sendable {
        let app: App
        let platform: Platform
        let userAgent: String
        let clientIP: String?
    }

    /// A refusal: the HTTP status and the `Message`.
    struct Refusal: Error, Sendable {
        let status: HTTPStatus
        let message: String
        var retryAfter: Duration?

        init(_ status: HTTPStatus, _ message: String, retryAfter: Duration? = nil) {
            self.status = status
            self.message = message
            self.retryAfter = retryAfter
        }

        static func limited(_ wait: Duration, _ what: String) -> Refusal {
            Refusal(.tooManyRequests, "too many \(what); try again later", retryAfter: wait)
        }

        var response: Response {
            var response = Response.json(status, DeviceAPICodec.error(message))
            if let retryAfter {
                // Whole seconds, rounded up: never earlier than the limit allows.
                let seconds = (retryAfter.milliseconds + 999) / 1_000
                response.headers.set(name: "Retry-After", value: String(max(1, seconds)))
            }
            if status == .unauthorized { response.headers.set(name: "WWW-Authenticate", value: "MAC") }
            return response
        }
    }

    // MARK: Request checks

    /// Signature, then `User-Agent`.
    func authenticate(_ request: Request) async throws(Refusal) -> Caller {
        if let caller = try authenticateWithoutWaiting(request) { return caller }
        let current = now()
        let (credentials, key) = try presentedCredentials(request)
        return try verify(request, credentials, app: try await reading { try await keyring.app(key, now: current) }, now: current)
    }

    /// ``authenticate(_:)`` when the app's secret is at hand without waiting (``AppKeyring/cachedApp(_:now:)``);
    /// nil when it is not, before anything was done (the replay guard admitted nothing): then call
    /// ``authenticate(_:)``.
    func authenticateWithoutWaiting(_ request: Request) throws(Refusal) -> Caller? {
        let current = now()
        let (credentials, key) = try presentedCredentials(request)
        guard let app = try reading({ try keyring.cachedApp(key, now: current) }) else { return nil }
        return try verify(request, credentials, app: app, now: current)
    }

    /// The `Authorization` header's MAC credentials and the app key they name.
    private func presentedCredentials(_ request: Request) throws(Refusal) -> (MACAuthentication.Credentials, AppKey) {
        guard let header = request.headers["authorization"] else { throw unauthorized(.missingHeader) }
        let credentials: MACAuthentication.Credentials
        switch MACAuthentication.parse(header) {
        case .success(let parsed): credentials = parsed
        case .failure(let failure): throw unauthorized(failure)
        }
        guard let key = AppKey(credentials.kid) else { throw unauthorized(.unknownKey) }
        return (credentials, key)
    }

    /// The checks once the app is known (nil: no app has the key): the signature, the replay guard, the `User-Agent`.
    private func verify(_ request: Request, _ credentials: MACAuthentication.Credentials, app: App?,
                        now current: Timestamp) throws(Refusal) -> Caller {
        guard let app else { throw unauthorized(.unknownKey) }
        // The configured host names, then the Host header; the target as sent, then percent-decoded.
        let hosts = SigningHosts(configured: configuration.hosts, header: request.headers["host"])
        let decoded = request.decodedTarget
        let signed = decoded == request.target
            ? MACAuthentication.matches(credentials, secret: app.secret.text, method: request.method.rawValue,
                                        targets: CollectionOfOne(request.target), hosts: hosts, cache: signatures)
            : MACAuthentication.matches(credentials, secret: app.secret.text, method: request.method.rawValue,
                                        targets: [request.target, decoded], hosts: hosts, cache: signatures)
        guard signed else { throw unauthorized(.badSignature) }
        let fingerprint = Fingerprint(method: request.method.rawValue, deviceID: request.headers["deviceid"] ?? "",
                                      userAgent: request.headers["user-agent"] ?? "", clientIP: request.remoteAddress ?? "",
                                      body: request.body)
        if let failure = replayGuard.admit(credentials, fingerprint: fingerprint, nowSeconds: current.milliseconds / 1_000) {
            throw unauthorized(failure)
        }
        guard let agent = request.headers["user-agent"], !agent.isEmpty else {
            throw Refusal(.badRequest, "the User-Agent header is required and must name the platform (iOS, Android or WindowsPhone)")
        }
        guard let platform = UserAgent.platform(agent) else {
            throw Refusal(.badRequest, "the User-Agent must name the platform (iOS, Android or WindowsPhone)")
        }
        return Caller(app: app, platform: platform, userAgent: agent.utf8.count <= 512 ? agent : String(agent.prefix(512)),
                      clientIP: request.remoteAddress)
    }

    /// The caller's registration, named by the `DeviceID` header.
    func device(_ request: Request, caller: Caller) async throws(Refusal) -> DeviceRegistration {
        let id = try deviceID(request)
        if let cached = try reading({ try registry.cachedRegistration(id) }) { return try owned(cached, by: caller) }
        return try owned(try await reading { try await registry.registration(id) }, by: caller)
    }

    /// The `DeviceID` header.
    func deviceID(_ request: Request) throws(Refusal) -> DeviceID {
        guard let text = request.headers["deviceid"], !text.isEmpty else {
            throw Refusal(.badRequest, "the DeviceID header is required (the DeviceID returned by POST /v1.0/deviceregistrations)")
        }
        guard let id = DeviceID(text.trimmingASCIISpaces()) else { throw Refusal(.badRequest, "the DeviceID header is not a GUID") }
        return id
    }

    /// The registration if it is the caller app's; another app's is answered exactly like an unknown one.
    func owned(_ registration: DeviceRegistration?, by caller: Caller) throws(Refusal) -> DeviceRegistration {
        guard let registration, registration.app == caller.app.key else {
            throw Refusal(.badRequest, "the DeviceID is not known for this app")
        }
        return registration
    }

    private func unauthorized(_ failure: MACAuthentication.Failure) -> Refusal {
        Refusal(.unauthorized, failure.description)
    }
}

/// The host names a signature may cover: the configured ones, then the `Host` header unless configured
/// (a sequence, so that no array is built per request).
private struct SigningHosts: Sequence {
    let configured: [String]
    let header: String?

    struct Iterator: IteratorProtocol {
        var configured: IndexingIterator<[String]>
        var header: String?

        mutating func next() -> String? {
            if let host = configured.next() { return host }
            defer { header = nil }
            return header
        }
    }

    func makeIterator() -> Iterator {
        Iterator(configured: configured.makeIterator(), header: header.flatMap { configured.contains($0) ? nil : $0 })
    }
}

/// What a signature does not cover but a replay would repeat: which install (or, before it has a
/// DeviceID, which client) sent what.
private struct Fingerprint: Hashable {
    let method: String
    let deviceID: String
    let userAgent: String
    let clientIP: String
    let body: [UInt8]

    /// The body is hashed as one run of bytes (an array's own hashing feeds the hasher one element at a time).
    func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(deviceID)
        hasher.combine(userAgent)
        hasher.combine(clientIP)
        hasher.combine(body.count)
        body.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

extension DeviceAPIService: StoreGuarded {
    var storeAccessName: String { "device API" }
}

extension DeviceAPIService.Refusal: ServiceRefusal {}
