#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization
import TandemCore

/// Pushes to iOS devices through Apple's HTTP/2 API with token-based authentication.
///
/// - One ``HTTPClient`` (one curl multi loop) for both APNs environments; the targets of a push, and
///   concurrent pushes, go out as multiplexed streams on shared connections.
/// - Each app's credentials come from the ``PushCredentialsSource`` on every push; the parsed `.p8`
///   key and its provider JWT are cached per key (``APNsProviderTokens``): one JWT per
///   `tokenRefreshInterval`, however many pushes.
/// - Verdicts follow ``APNsOutcome``; transient failures are retried by ``PushRetryPolicy`` until the
///   push's TTL or lifetime ends, then reported `.rejected(.transient)`.
/// - A push without an app, or for an app without APNs credentials or with an unusable key, is
///   `.rejected(.other)` for every target, with a logged reason.
///
/// Not guaranteed: a verdict for every target. A target is left out when the task is cancelled before
/// its answer arrived (a request already on the wire may still be delivered by Apple) or the sender was
/// shut down. A target's own environment and topic (``PushTarget/apnsSandbox``, ``PushTarget/apnsTopic``)
/// override the app's; a data-only presentation goes as `apns-push-type: background`, priority 5.
/// Not done: certificate-based authentication, push types other than the configured one and `background`.
public final class APNsSender: PushSender {
    public let settings: Settings
    private let client: HTTPClient
    private let credentials: any PushCredentialsSource
    let clock: any SchedulerClock
    private let logger: Logger
    let tokens: APNsProviderTokens
    private let inFlight = Atomic<Int>(0)
    private let mostInFlight = Atomic<Int>(0)

    /// `environment` reads the variable named by an `APNsKeySource.environment` key source (by default
    /// the process environment). `clock` gives JWT `iat`, refresh ages, `apns-expiration` and backoff.
    public init(settings: Settings = Settings(), credentials: any PushCredentialsSource, clock: any SchedulerClock,
                logger: Logger, environment: @escaping @Sendable (String) -> String? = APNsSender.processEnvironment)
        throws(APNsSenderError) {
        try settings.validate()
        do {
            client = try HTTPClient(configuration: settings.client)
        } catch {
            throw .client(error)
        }
        self.settings = settings
        self.credentials = credentials
        self.clock = clock
        self.logger = logger.with(["component": "apns"])
        self.tokens = APNsProviderTokens(refreshInterval: settings.tokenRefreshInterval, environment: environment)
    }

    /// The server process's environment variable `name`.
    @Sendable public static func processEnvironment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    public func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
        if Task.isCancelled || push.targets.isEmpty { return [:] }
        let log = logger.with(["delivery": .int(push.key.rawValue), "recipient": .string(push.recipient.description)])
        let apns: APNsCredentials
        switch await PushFanOut.credentials(for: push, from: credentials, platform: "APNs", logger: log, \.apns) {
        case .success(let found): apns = found
        case .failure(let refused): return refused.verdicts
        }
        let start = clock.now()
        let settings = settings
        let payload = APNsRenderer(sound: settings.sound, badge: settings.badge)
            .payload(push.content.presentation, title: push.content.sender, body: push.content.body,
                     identifiers: PushIdentifiers.members(messageID: push.content.messageID, updateID: push.key))
        let presentation = push.content.presentation
        let expiration = presentation.apnsTimeToLive.map { start + min($0, settings.providerMaximumTTL) }
            ?? APNsNotification.expiration(for: push.policy, from: start, maximum: settings.providerMaximumTTL)
        let collapseID = presentation.apnsCollapseID.flatMap { $0.utf8.count <= 64 ? $0 : nil } ?? push.content.messageID.text
        let deadline = PushRetryPolicy.retryDeadline(for: push.policy, from: start, providerMaximum: settings.providerMaximumTTL)
        @Sendable func route(_ target: PushTarget) -> Route {
            Route(credentials: apns, baseURL: (target.apnsSandbox ?? apns.sandbox) ? settings.sandboxURL : settings.productionURL,
                  deadline: deadline)
        }
        // A data-only push is a background update: Apple requires push type `background` and priority 5 for it.
        let background = push.content.presentation.isDataOnly
        @Sendable func notification(_ target: PushTarget) -> APNsNotification {
            APNsNotification(token: target.token, topic: target.apnsTopic ?? apns.topic,
                             pushType: background ? "background" : settings.pushType,
                             priority: background ? .normal : push.policy.pushPriority, expiration: expiration,
                             collapseID: collapseID,
                             apnsID: APNsNotification.apnsID(for: push.key, device: target.deviceID), payload: payload)
        }
        return await PushFanOut.verdicts(for: push.targets, logger: log) { target, logger in
            await self.deliver(notification(target), route: route(target), logger: logger)
        }
    }

    /// Fails requests still running and stops the client's thread. Pushes sent afterwards get no verdict.
    public func shutdown() async {
        await client.shutdown()
    }

    /// Counters for tests, metrics and the benchmark.
    public struct Statistics: Sendable, Hashable {
        /// Provider JWTs signed since the sender was made.
        public var providerTokensSigned: Int
        /// Requests to APNs on the wire (or queued for a stream) now.
        public var requestsInFlight: Int
        /// The most requests in flight at once so far: with one connection, the most concurrent streams.
        public var mostRequestsInFlight: Int
        public var http: HTTPClientStatistics
    }

    public var statistics: Statistics {
        Statistics(providerTokensSigned: tokens.issued, requestsInFlight: inFlight.load(ordering: .relaxed),
                   mostRequestsInFlight: mostInFlight.load(ordering: .relaxed), http: client.statistics)
    }

    /// Where one push's notifications go and until when they may be retried.
    struct Route: Sendable {
        let credentials: APNsCredentials
        let baseURL: String
        let deadline: Timestamp
    }

    /// `client.send`, counted in the in-flight statistics.
    func post(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let now = inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        mostInFlight.max(now, ordering: .relaxed)
        defer { inFlight.wrappingSubtract(1, ordering: .relaxed) }
        return try await client.send(request)
    }
}
