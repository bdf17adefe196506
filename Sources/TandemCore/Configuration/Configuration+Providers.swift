/// Which push, SMS and voice providers the engine talks to (`providers`), each real one with its endpoint
/// overridable so tests point it at loopback peers.
///
///     "providers": "simulator"                                 (everything in-process: the default)
///     "providers": {
///       "push":  "simulator" | "services" | {"apns": {…}, "fcm": {…}},
///       "sms":   "simulator" | {"smpp": {…}} | {"kannel": {…}},
///       "voice": "simulator" | {"webhook": {…}}
///     }
///
/// A member left out is simulated. `"services"` (or an object) pushes to APNs for iOS and FCM for Android
/// installs with each app's own credentials (`tandem app set-apns` / `set-fcm`); the objects only change
/// endpoints and limits. Secrets (`password`, `token`) are environment-variable references.
extension Configuration {
    public struct Providers: Sendable, Hashable {
        public var push: PushProviders = .simulator
        public var sms: SMSProvider = .simulator
        public var voice: VoiceProvider = .simulator
        public init() {}

        /// Every provider simulated.
        public static let simulator = Providers()

        /// Which provider serves each channel, for the start-up log: `push=simulator sms=smpp voice=simulator`.
        public var summary: String {
            "push=\(push.name) sms=\(sms.name) voice=\(voice.name)"
        }
    }

    public enum PushProviders: Sendable, Hashable {
        case simulator
        case services(APNs, FCM)

        var name: String {
            switch self {
            case .simulator: "simulator"
            case .services: "apns+fcm"
            }
        }
    }

    public enum SMSProvider: Sendable, Hashable {
        case simulator
        case smpp(SMPP)
        case kannel(Kannel)

        var name: String {
            switch self {
            case .simulator: "simulator"
            case .smpp: "smpp"
            case .kannel: "kannel"
            }
        }
    }

    public enum VoiceProvider: Sendable, Hashable {
        case simulator
        case webhook(VoiceWebhook)

        var name: String {
            switch self {
            case .simulator: "simulator"
            case .webhook: "webhook"
            }
        }
    }

    /// The HTTP/2 connection limits shared by APNs and FCM.
    public struct HTTP2Limits: Sendable, Hashable {
        /// Connections per host; more open only when every one carries `concurrentStreams`.
        public var connections = 1
        public var concurrentStreams = 100
        /// Trusted CA certificates (PEM) instead of the system store — for test peers. Must exist at start-up.
        public var caFile: String?
        /// One request's time limit, queueing included.
        public var timeout: Duration = .seconds(15)
        /// Tries per push before it counts as failed transiently (429, 5xx, network errors).
        public var maxAttempts = 5
        public init() {}
    }

    public struct APNs: Sendable, Hashable {
        public var productionURL = "https://api.push.apple.com"
        public var sandboxURL = "https://api.sandbox.push.apple.com"
        /// How long a provider JWT is used before a new one is signed (Apple: 20–60 minutes).
        public var tokenRefresh: Duration = .seconds(40 * 60)
        public var http = HTTP2Limits()
        public init() {}
    }

    public struct FCM: Sendable, Hashable {
        public var baseURL = "https://fcm.googleapis.com"
        /// Replaces the service account's `token_uri` (tests); nil uses the file's.
        public var tokenURL: String?
        /// Adds FCM's `notification` block, so Android itself shows the message while the app is in the
        /// background — but then the app's code never sees it and cannot acknowledge delivery (a Critical
        /// message would fall back to SMS although it was shown). Off: data-only messages, which the SDK
        /// acknowledges and then displays.
        public var notification = false
        public var http = HTTP2Limits()
        public init() {}
    }

    public struct SMPP: Sendable, Hashable {
        public var host: String
        public var port: UInt16
        public var systemID: String
        public var password: SecretReference
        public var systemType = ""
        /// Names the SMSC in `provider_refs` and reports; change it when pointing at another SMSC.
        public var name = "smpp"
        public var binds = 1
        /// Outstanding `submit_sm` per bind.
        public var window = 10
        /// Per bind; nil for no limit.
        public var submitsPerSecond: Int?
        public var enquireLinkInterval: Duration = .seconds(30)
        public var responseTimeout: Duration = .seconds(10)
        public var reconnectMin: Duration = .seconds(1)
        public var reconnectMax: Duration = .seconds(60)
        public init(host: String, port: UInt16, systemID: String, password: SecretReference) {
            self.host = host
            self.port = port
            self.systemID = systemID
            self.password = password
        }
    }

    public struct Kannel: Sendable, Hashable {
        /// Kannel smsbox's `sendsms` URL, e.g. `http://127.0.0.1:13013/cgi-bin/sendsms`.
        public var sendsmsURL: String
        public var username: String
        public var password: SecretReference
        /// Tandem's DLR callback as Kannel reaches it, e.g. `http://tandem.internal:8080/kannel/dlr`.
        public var dlrURL: String
        /// Kannel's `dlr-mask`: 1 delivered, 2 undelivered, 4 queued, 8 SMSC accepted, 16 SMSC rejected.
        public var dlrMask = 19
        /// Kannel's `smsc` routing parameter; nil lets Kannel choose.
        public var smsc: String?
        /// When set, the DLR URL carries this token and callbacks without it are refused.
        public var dlrToken: SecretReference?
        public var timeout: Duration = .seconds(10)
        /// sendsms requests on the wire at once (1-64), each on its own connection; the others wait, PINs first.
        public var connections = 4
        /// The path of the Kannel configuration smsbox runs with, when Tandem can read it: checked at
        /// start-up for the settings that make smsbox retry a DLR callback made while Tandem was down
        /// (`http-request-retry`, `http-queue-delay`); what is missing is logged as a warning.
        public var smsboxConfig: String?
        public init(sendsmsURL: String, username: String, password: SecretReference, dlrURL: String) {
            self.sendsmsURL = sendsmsURL
            self.username = username
            self.password = password
            self.dlrURL = dlrURL
        }
    }

    public struct VoiceWebhook: Sendable, Hashable {
        /// Receives `POST {"to", "pin", "language"}` and places the call.
        public var url: String
        /// Sent as `Authorization: Bearer …` when set.
        public var token: SecretReference?
        public var timeout: Duration = .seconds(10)
        public init(url: String) { self.url = url }
    }
}
