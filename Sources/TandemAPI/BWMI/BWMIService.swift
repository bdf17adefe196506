import Synchronization
import TandemCore
import TandemEngine
import TandemHTTP

/// TIBCO BusinessWorks Mobile Integration (BWMI) on the hybrid engine: the app endpoints a BWMI mobile app
/// calls (device registration, acknowledgements, pending notifications), served under `/bwmi/{appKey}/`,
/// and the enterprise endpoint that sends to those devices through ``MessageIntake``.
///
/// The app endpoints carry no authentication (as BWMI's): an app key in the path names the app; an app may
/// require a static key in `X-BWMI-Key` (``BWMIAppSettings/staticKey``). Registrations are limited per
/// client address and per app (``Configuration``). A device, an acknowledgement or a pending list of one
/// app is invisible to another app's base path. Errors are `{"error":"…"}`.
///
/// A managed notification's `nid` is its delivery's update id, for notifications sent here and for CM
/// messages that reached the device through its phone (``BWMIAppSettings/trustPhones``). An
/// acknowledgement is the delivery's read receipt; the device then gets a badge-only push with its new
/// live count, sent straight to the push sender (no message, no delivery) and coalesced per device.
///
/// Not guaranteed: that a notification acknowledged while its delivery is already final and before the
/// service recorded it (a crash between the intake's commit and that record) is found: that ack is 404.
public final class BWMIService: Sendable {
    public struct Configuration: Sendable {
        /// `PUT`/`DELETE /devices` per client address per minute.
        public var registrationsPerClientIP: Int
        /// `PUT`/`DELETE /devices` per app per minute.
        public var registrationsPerApp: Int
        /// How long a managed notification stays live when its policy's lifetime is the provider's maximum.
        public var providerMaximumLifetime: Duration

        public init(registrationsPerClientIP: Int = 60, registrationsPerApp: Int = 1_200,
                    providerMaximumLifetime: Duration = .seconds(28 * 86_400)) {
            self.registrationsPerClientIP = registrationsPerClientIP
            self.registrationsPerApp = registrationsPerApp
            self.providerMaximumLifetime = providerMaximumLifetime
        }
    }

    let registry: any BWMIRegistry
    let directory: any SenderDirectory
    let ledger: any MessageLedger
    let intake: MessageIntake
    let scheduler: Scheduler
    /// Where badge-only updates go directly (the dispatcher's push sender): they are no messages.
    let push: any PushSender
    let badges = BWMIBadgeUpdates()
    let authenticator: ProductTokenAuthenticator
    let policies: PolicySet
    let now: @Sendable () -> Timestamp
    let configuration: Configuration
    let logger: Logger
    private let limits: Mutex<Limiters>

    private struct Limiters {
        var perClientIP: RateLimiter
        var perApp: RateLimiter
        var checks = 0
    }

    public init(registry: any BWMIRegistry, directory: any SenderDirectory, ledger: any MessageLedger, intake: MessageIntake,
                scheduler: Scheduler, push: any PushSender, authenticator: ProductTokenAuthenticator, policies: PolicySet,
                now: @escaping @Sendable () -> Timestamp, configuration: Configuration = Configuration(),
                logger: Logger = .discarding) {
        self.registry = registry
        self.directory = directory
        self.ledger = ledger
        self.intake = intake
        self.scheduler = scheduler
        self.push = push
        self.authenticator = authenticator
        self.policies = policies
        self.now = now
        self.configuration = configuration
        self.logger = logger
        limits = Mutex(Limiters(perClientIP: RateLimiter(limit: max(configuration.registrationsPerClientIP, 1), window: .seconds(60)),
                                perApp: RateLimiter(limit: max(configuration.registrationsPerApp, 1), window: .seconds(60))))
    }

    /// A refusal: the HTTP status and the `error` text.
    struct Refusal: Error, Sendable {
        let status: HTTPStatus
        let message: String
        var retryAfter: Duration?

        init(_ status: HTTPStatus, _ message: String, retryAfter: Duration? = nil) {
            self.status = status
            self.message = message
            self.retryAfter = retryAfter
        }

        var response: Response {
            var response = Response.json(status, BWMICodec.error(message))
            if let retryAfter {
                response.headers.set(name: "Retry-After", value: String(max(1, (retryAfter.milliseconds + 999) / 1_000)))
            }
            return response
        }
    }

    // MARK: App endpoints

    /// `PUT /bwmi/{appKey}/devices` → 201, no body.
    public func register(_ request: Request) async -> Response {
        do throws(Refusal) {
            let app = try await appOfPath(request)
            try admitRegistration(request, app: app)
            let body = try decoded { () throws(BWMICodec.Problem) in try BWMICodec.device(request.body) }
            _ = try await writing {
                try await registry.registerBWMIDevice(app: app.key, platform: body.platform, token: body.token,
                                                      phone: body.phone, email: body.email, at: now())
            }
            return Response.empty(.created)
        } catch {
            return error.response
        }
    }

    /// `DELETE /bwmi/{appKey}/devices` → 200, no body, whether or not the device was known.
    public func deregister(_ request: Request) async -> Response {
        do throws(Refusal) {
            let app = try await appOfPath(request)
            try admitRegistration(request, app: app)
            let body = try decoded { () throws(BWMICodec.Problem) in try BWMICodec.device(request.body) }
            _ = try await writing { try await registry.deregisterBWMIDevice(app: app.key, token: body.token, at: now()) }
            return Response.empty(.ok)
        } catch {
            return error.response
        }
    }

    /// `GET /bwmi/{appKey}/devices/{deviceToken}/notifications` → 200 `{"ns":[…]}`, oldest first; an unknown
    /// token → 404. A deregistered or invalidated device has none.
    public func pending(_ request: Request) async -> Response {
        do throws(Refusal) {
            let app = try await appOfPath(request)
            guard let text = request.pathParameters["deviceToken"], let token = PushToken(text),
                  let device = try await reading({ try await registry.bwmiDevice(app: app.key, token: token) }) else {
                throw Refusal(.notFound, "no device with this token is registered for this app")
            }
            let live = device.active ? try await reading { try await registry.liveBWMINotifications(device: device, at: now()) } : []
            return Response.json(.ok, BWMICodec.pending(live))
        } catch {
            return error.response
        }
    }

    // MARK: Checks

    /// The app the path names, and its static key when it requires one.
    func appOfPath(_ request: Request) async throws(Refusal) -> App {
        try await bwmiAppOfPath(request).app
    }

    /// ``appOfPath(_:)`` with the app's settings. Both come from the registry's cache, which sees what other
    /// processes commit (``BWMIRegistry/bwmiApp(key:)``): no read per request while nothing was written.
    func bwmiAppOfPath(_ request: Request) async throws(Refusal) -> BWMIApp {
        let key = try appKeyOfPath(request)
        return try checkedKey(of: try await reading { try await registry.bwmiApp(key: key) }, request)
    }

    /// ``bwmiAppOfPath(_:)`` when the registry can answer without waiting (``BWMIRegistry/cachedBWMIApp(key:)``),
    /// else nil.
    func bwmiAppOfPathWithoutWaiting(_ request: Request) throws(Refusal) -> BWMIApp? {
        let key = try appKeyOfPath(request)
        guard let cached = try reading({ try registry.cachedBWMIApp(key: key) }) else { return nil }
        return try checkedKey(of: cached, request)
    }

    private func appKeyOfPath(_ request: Request) throws(Refusal) -> AppKey {
        guard let text = request.pathParameters["appKey"], let key = AppKey(text) else {
            throw Refusal(.notFound, "no BWMI app at this base path")
        }
        return key
    }

    /// The app, if there is one and the request carries its static key when it requires one.
    private func checkedKey(of app: BWMIApp?, _ request: Request) throws(Refusal) -> BWMIApp {
        guard let found = app else { throw Refusal(.notFound, "no BWMI app at this base path") }
        if let required = found.settings.staticKey {
            guard let presented = request.headers["x-bwmi-key"],
                  ConstantTime.equals(Array(presented.utf8), Array(required.utf8)) else {
                throw Refusal(.unauthorized, "this app requires its key in the X-BWMI-Key header")
            }
        }
        return found
    }

    private func admitRegistration(_ request: Request, app: App) throws(Refusal) {
        let current = now()
        let decision = limits.withLock { limiters -> RateLimiter.Decision in
            limiters.checks += 1
            if limiters.checks % 10_000 == 0 {
                limiters.perClientIP.purge(now: current)
                limiters.perApp.purge(now: current)
            }
            let ip = request.remoteAddress ?? ""
            if case .limited(let wait) = limiters.perClientIP.check(ip, now: current) { return .limited(retryAfter: wait) }
            if case .limited(let wait) = limiters.perApp.check(app.key.text, now: current) { return .limited(retryAfter: wait) }
            _ = limiters.perClientIP.attempt(ip, now: current)
            _ = limiters.perApp.attempt(app.key.text, now: current)
            return .allowed
        }
        if case .limited(let wait) = decision {
            throw Refusal(.tooManyRequests, "too many device registrations; try again later", retryAfter: wait)
        }
    }

    func decoded<T>(_ body: () throws(BWMICodec.Problem) -> T) throws(Refusal) -> T {
        do {
            return try body()
        } catch {
            throw Refusal(.badRequest, error.message)
        }
    }
}

extension BWMIService: StoreGuarded {
    var storeAccessName: String { "BWMI" }
}

extension BWMIService.Refusal: ServiceRefusal {}
