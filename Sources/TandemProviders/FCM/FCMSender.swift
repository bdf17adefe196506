import TandemCore

/// Pushes to Android devices through the FCM HTTP v1 API, authenticated with OAuth2 access tokens from
/// each app's Google service account.
///
/// - One ``HTTPClient`` (one curl multi loop) for sends and token fetches; sends are multiplexed HTTP/2
///   streams.
/// - Each app's service-account path comes from the ``PushCredentialsSource`` on every push; the parsed
///   file and its access token are cached per path (``FCMAccounts``, ``FCMAccessTokens``): one token
///   fetch per token lifetime, shared by concurrent pushes.
/// - Verdicts follow ``FCMOutcome``; transient failures are retried by ``PushRetryPolicy`` (honouring
///   `Retry-After`) until the push's TTL or lifetime ends, then reported `.rejected(.transient)`. On a
///   retry `android.ttl` is what is left of the original TTL.
/// - A push without an app, or for an app without FCM credentials or with an unusable service account,
///   is `.rejected(.other)` for every target, with a logged reason.
///
/// Not guaranteed: a verdict for every target (left out when the task is cancelled before its answer
/// arrived, or the sender was shut down). Not done: topics, conditions, APNs/web overrides, the legacy API.
public final class FCMSender: PushSender {
    public let settings: Settings
    let client: HTTPClient
    private let credentials: any PushCredentialsSource
    let clock: any SchedulerClock
    private let logger: Logger
    let accounts: FCMAccounts

    public init(settings: Settings = Settings(), credentials: any PushCredentialsSource, clock: any SchedulerClock,
                logger: Logger) throws(FCMSenderError) {
        try settings.validate()
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: settings.client)
        } catch {
            throw .client(error)
        }
        self.settings = settings
        self.client = client
        self.credentials = credentials
        self.clock = clock
        self.logger = logger.with(["component": "fcm"])
        accounts = FCMAccounts { [settings] account in
            FCMAccessTokens(fetcher: FCMTokenFetcher(account: account, tokenURL: settings.tokenURLOverride ?? account.tokenURI,
                                                     client: client, timeout: settings.requestTimeout),
                            clock: clock, margin: settings.accessTokenMargin, holdOff: settings.refusedTokenHoldOff)
        }
    }

    public func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
        if Task.isCancelled || push.targets.isEmpty { return [:] }
        let log = logger.with(["delivery": .int(push.key.rawValue), "recipient": .string(push.recipient.description)])
        let fcm: FCMCredentials
        switch await PushFanOut.credentials(for: push, from: credentials, platform: "FCM", logger: log, \.fcm) {
        case .success(let found): fcm = found
        case .failure(let refused): return refused.verdicts
        }
        let loaded: FCMAccounts.Loaded
        do {
            loaded = try accounts.account(at: fcm.serviceAccountPath)
        } catch {
            log.error("FCM service account unusable", ["app": .string(push.content.app?.description ?? ""),
                                                       "error": .string(error.description)])
            return PushFanOut.all(push.targets, .rejected(.other))
        }
        let start = clock.now()
        let route = Route(loaded: loaded, url: settings.baseURL + "/v1/projects/" + loaded.account.projectID + "/messages:send",
                          expiry: start + min(push.policy.pushTTL.duration ?? settings.providerMaximumTTL, settings.providerMaximumTTL),
                          deadline: PushRetryPolicy.retryDeadline(for: push.policy, from: start,
                                                                  providerMaximum: settings.providerMaximumTTL))
        @Sendable func message(_ target: PushTarget) -> FCMMessage {
            FCMMessage(token: target.token.text, messageID: push.content.messageID, updateID: push.key,
                       sender: push.content.sender, text: push.content.body, presentation: push.content.presentation,
                       priority: push.policy.pushPriority,
                       renderer: FCMRenderer(includeNotification: settings.includeNotification,
                                             payloadLimit: settings.maximumPayloadBytes))
        }
        return await PushFanOut.verdicts(for: push.targets, logger: log) { target, logger in
            await self.deliver(message(target), route: route, logger: logger)
        }
    }

    /// Fails requests still running and stops the client's thread. Pushes sent afterwards get no verdict.
    public func shutdown() async {
        await client.shutdown()
    }

    public var httpStatistics: HTTPClientStatistics { client.statistics }

    /// Where one push's messages go, when their TTL ends and until when they may be retried.
    struct Route: Sendable {
        let loaded: FCMAccounts.Loaded
        let url: String
        let expiry: Timestamp
        let deadline: Timestamp
    }
}
