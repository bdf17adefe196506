import TandemAPI
import TandemEngine
import TandemCore
import TandemHTTP
import TandemProviders

/// The push, SMS and voice providers the configuration names (`providers`), built together, connected to
/// the scheduler, started and stopped as one. The simulators are the default; each channel may be real.
final class ProviderStack: Sendable {
    let push: any PushSender
    let sms: any SMSSender
    /// Verification PINs go out through the SMS provider (the simulator's stand-in phone when simulated).
    let pinSender: any PinSender
    let voiceCaller: any VoiceCaller
    /// The accept-time push size check, with the renderers' settings the push senders use.
    let payloadMeasure: any PushPayloadMeasure
    private let pushSimulator: PushSimulator?
    private let smsSimulator: SMSSimulator?
    private let kannelDLR: KannelDLREndpoint.Settings?
    private let smppClient: SMPPClient?
    private let smppBindCount: Int
    private let clients: [HTTPClient]
    private let pushShutdown: [@Sendable () async -> Void]
    /// The push services' HTTP clients by provider (`apns`, `fcm`); none with the simulator.
    let pushStatistics: [(provider: String, read: @Sendable () -> HTTPClientStatistics)]
    private let logger: Logger

    /// The SMPP client's binds (configured, bound now); nil when SMS does not go out over SMPP.
    var smppBinds: (binds: Int, bindsUp: Int)? {
        smppClient.map { (binds: smppBindCount, bindsUp: $0.status.boundBinds) }
    }

    /// `credentials` are the apps' APNs and FCM credentials (the store), read when a push goes out.
    init(configuration: Configuration, credentials: any PushCredentialsSource, logger: Logger) throws(CommandFailure) {
        self.logger = logger
        let providers = configuration.providers
        let simulatorLogger = configuration.simulator.logEvents ? logger.with(["component": "simulator"]) : .discarding
        let pins = PinSimulator(latency: configuration.simulator.smsLatency, logger: logger.with(["component": "simulator"]))
        var clients: [HTTPClient] = []

        var apnsSettings = APNsSender.Settings()
        var fcmSettings = FCMSender.Settings()
        if case .services(_, let fcmConfiguration) = providers.push { fcmSettings.includeNotification = fcmConfiguration.notification }
        payloadMeasure = RenderedPayloadMeasure(apns: APNsRenderer(sound: apnsSettings.sound, badge: apnsSettings.badge),
                                                fcm: FCMRenderer(includeNotification: fcmSettings.includeNotification,
                                                                 payloadLimit: fcmSettings.maximumPayloadBytes))
        switch providers.push {
        case .simulator:
            let simulator = PushSimulator(settings: configuration.simulator.push, logger: simulatorLogger)
            (push, pushSimulator, pushShutdown) = (simulator, simulator, [])
            pushStatistics = []
        case .services(let apnsConfiguration, let fcmConfiguration):
            let clock = SystemClock()
            let pushLogger = logger.with(["component": "push"])
            let credentials = CachedPushCredentials(credentials, clock: clock)
            do {
                apnsSettings.productionURL = apnsConfiguration.productionURL
                apnsSettings.sandboxURL = apnsConfiguration.sandboxURL
                apnsSettings.tokenRefreshInterval = apnsConfiguration.tokenRefresh
                Self.apply(apnsConfiguration.http, to: &apnsSettings.client, timeout: &apnsSettings.requestTimeout,
                           retry: &apnsSettings.retry)
                let apns = try APNsSender(settings: apnsSettings, credentials: credentials, clock: clock, logger: pushLogger)
                fcmSettings.baseURL = fcmConfiguration.baseURL
                fcmSettings.tokenURLOverride = fcmConfiguration.tokenURL
                Self.apply(fcmConfiguration.http, to: &fcmSettings.client, timeout: &fcmSettings.requestTimeout,
                           retry: &fcmSettings.retry)
                let fcm = try FCMSender(settings: fcmSettings, credentials: credentials, clock: clock, logger: pushLogger)
                push = PlatformPushSender(apns: apns, fcm: fcm, logger: pushLogger)
                pushShutdown = [{ await apns.shutdown() }, { await fcm.shutdown() }]
                pushStatistics = [("apns", { apns.statistics.http }), ("fcm", { fcm.httpStatistics })]
            } catch {
                throw CommandFailure(.failure, "providers.push: \(error)")
            }
            pushSimulator = nil
        }

        if case .smpp(let smpp) = providers.sms { smppBindCount = smpp.binds } else { smppBindCount = 0 }
        switch providers.sms {
        case .simulator:
            let simulator = SMSSimulator(settings: configuration.simulator.sms, logger: simulatorLogger)
            (sms, smsSimulator, pinSender, kannelDLR, smppClient) = (simulator, simulator, pins, nil, nil)
        case .smpp(let smpp):
            var settings = SMPPClient.Settings(host: smpp.host, port: Int(smpp.port), systemID: smpp.systemID,
                                               password: smpp.password.value)
            settings.systemType = smpp.systemType
            settings.providerName = smpp.name
            settings.binds = smpp.binds
            settings.window = smpp.window
            settings.submitsPerSecond = smpp.submitsPerSecond.map(Double.init)
            settings.enquireLinkInterval = smpp.enquireLinkInterval
            settings.responseTimeout = smpp.responseTimeout
            settings.reconnectBackoff = smpp.reconnectMin ... smpp.reconnectMax
            let client: SMPPClient
            do {
                client = try SMPPClient(settings: settings, logger: logger.with(["component": "smpp"]))
            } catch {
                throw CommandFailure(.failure, "providers.sms.smpp: \(error)")
            }
            (sms, smsSimulator, pinSender, kannelDLR, smppClient) = (client, nil, client, nil, client)
        case .kannel(let kannel):
            let client = try Self.httpClient("providers.sms.kannel") {
                $0.defaultTimeout = kannel.timeout
                $0.maxConnectionsPerHost = kannel.connections
            }
            clients.append(client)
            var settings = KannelSMSSender.Settings(sendSMSURL: kannel.sendsmsURL, username: kannel.username,
                                                    password: kannel.password.value, dlrURL: kannel.dlrURL)
            settings.dlrMask = KannelDLRMask(rawValue: kannel.dlrMask)
            settings.dlrToken = kannel.dlrToken?.value
            settings.smsc = kannel.smsc
            settings.timeout = kannel.timeout
            settings.connections = kannel.connections
            let sender: KannelSMSSender
            do {
                sender = try KannelSMSSender(settings: settings, client: client, logger: logger.with(["component": "kannel"]))
            } catch {
                throw CommandFailure(.failure, "providers.sms.kannel: \(error)")
            }
            (sms, smsSimulator, pinSender, smppClient) = (sender, nil, sender, nil)
            if let path = kannel.smsboxConfig { Self.checkSmsboxRetry(path: path, logger: logger.with(["component": "kannel"])) }
            kannelDLR = KannelDLREndpoint.Settings(path: Self.path(of: kannel.dlrURL), token: kannel.dlrToken?.value,
                                                   providerName: settings.providerName)
        }

        switch providers.voice {
        case .simulator:
            voiceCaller = pins
        case .webhook(let webhook):
            let client = try Self.httpClient("providers.voice.webhook") { $0.defaultTimeout = webhook.timeout }
            clients.append(client)
            var settings = WebhookVoiceCaller.Settings(url: webhook.url, bearerToken: webhook.token?.value)
            settings.timeout = webhook.timeout
            do {
                voiceCaller = try WebhookVoiceCaller(settings: settings, client: client, logger: logger.with(["component": "voice"]))
            } catch {
                throw CommandFailure(.failure, "providers.voice.webhook: \(error)")
            }
        }
        self.clients = clients
    }

    /// Hands provider events to the scheduler: SMS delivery reports by part id, and the push simulator's
    /// receipts as the app's own (`deliveryAcknowledged`, `readReported`).
    func connect(to scheduler: Scheduler) {
        let logger = logger
        smsSimulator?.onReport { reports in try await scheduler.recordSMSReports(reports) }
        smppClient?.onReport { reports in try await scheduler.recordSMSReports(reports) }
        pushSimulator?.onReceipts { receipts in
            let events = receipts.map { key, device, receipt -> (DeliveryKey, DeliveryEvent) in
                switch receipt {
                case .delivered: (key, .deliveryAcknowledged(device))
                case .read: (key, .readReported(device))
                }
            }
            do {
                _ = try await scheduler.record(events)
            } catch {
                logger.error("simulated receipts not recorded", ["count": .int(Int64(events.count)), "error": .string("\(error)")])
            }
        }
    }

    /// The providers' own HTTP endpoints (Kannel's DLR callback).
    func register(in router: inout HTTPRouter, scheduler: Scheduler) {
        if let kannelDLR {
            KannelDLREndpoint(settings: kannelDLR, onReports: { try await scheduler.recordSMSReports($0) },
                              logger: logger.with(["component": "kannel"])).register(in: &router)
        }
    }

    /// Starts what keeps its own connections (the SMPP binds), in the background.
    func start() {
        smppClient?.start()
    }

    /// Unbinds from the SMSC and releases connections (after the dispatcher is idle).
    func shutdown() async {
        await smppClient?.shutdown()
        for stop in pushShutdown { await stop() }
        for client in clients { await client.shutdown() }
    }

    /// The HTTP/2 limits of the configuration onto a push sender's client, timeout and retries.
    private static func apply(_ limits: Configuration.HTTP2Limits, to client: inout HTTPClient.Configuration,
                              timeout: inout Duration, retry: inout PushRetryPolicy) {
        client.maxConnectionsPerHost = limits.connections
        client.maxConcurrentStreams = limits.concurrentStreams
        client.caFile = limits.caFile
        timeout = limits.timeout
        retry.maxAttempts = limits.maxAttempts
    }

    private static func httpClient(_ key: String, _ adjust: (inout HTTPClient.Configuration) -> Void) throws(CommandFailure) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        adjust(&configuration)
        do {
            return try HTTPClient(configuration: configuration)
        } catch {
            throw CommandFailure(.failure, "\(key): cannot start the HTTP client: \(error)")
        }
    }

    /// The path of an absolute URL (`http://host:8080/kannel/dlr?x` → `/kannel/dlr`), `/` when it has none.
    static func path(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "/" }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        let path = rest[slash...]
        return String(path.prefix { $0 != "?" && $0 != "#" })
    }
}
