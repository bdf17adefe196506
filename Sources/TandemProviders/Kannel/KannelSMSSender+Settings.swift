extension KannelSMSSender {
    /// Where Kannel's smsbox is and how to call it. Secrets (`password`, `dlrToken`) are values here: the
    /// caller reads them from the environment variables the configuration names, and they are never logged.
    public struct Settings: Sendable, Hashable {
        /// smsbox's sendsms interface, e.g. `http://127.0.0.1:13013/cgi-bin/sendsms`.
        public var sendSMSURL: String
        /// A `sendsms-user` of Kannel's configuration.
        public var username: String
        public var password: String
        /// Tandem's public URL for Kannel's DLR callbacks (the DLR endpoint), e.g. `http://tandem:8080/kannel/dlr`.
        /// Nil asks for no reports: deliveries then end at their SMS validity. It must not contain `%` (Kannel
        /// would read it as an escape code) nor `#`.
        public var dlrURL: String?
        /// Which reports to ask for; see ``KannelDLRMask`` (default 19: the final ones).
        public var dlrMask: KannelDLRMask = .finalStates
        /// A shared secret sent back in the callback as `token=` (what the DLR endpoint checks); nil for none.
        /// Limited to `A–Z a–z 0–9 - . _ ~`, so it needs no escaping inside Kannel's dlr-url.
        public var dlrToken: String?
        /// Kannel's `smsc` parameter: route through this SMSC id; nil lets Kannel choose.
        public var smsc: String?
        /// Names the provider in reports and references (`SMSDeliveryReport.provider`).
        public var providerName = "kannel"
        /// Per-request timeout, counted from the moment the request is sent (not while it waits for a connection).
        public var timeout: Duration = .seconds(10)
        /// Requests on the wire at once, each on its own keep-alive connection (the HTTP client must allow as
        /// many connections per host). smsbox answers a sendsms as soon as it has queued the SMS, so a few
        /// connections carry hundreds of SMS a second.
        public var connections = 4
        /// Tries when Kannel cannot be reached at all (connection refused or unresolvable: nothing was sent).
        /// Timeouts and answers are never retried.
        public var connectAttempts = 3
        /// The pause before a connection is tried again, doubled each time.
        public var retryDelay: Duration = .milliseconds(250)

        public init(sendSMSURL: String, username: String, password: String, dlrURL: String?) {
            self.sendSMSURL = sendSMSURL
            self.username = username
            self.password = password
            self.dlrURL = dlrURL
        }

        /// The first problem with these settings, or nil.
        func validationProblem() -> KannelSettingsError? {
            let isHTTP: (String) -> Bool = { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
            let hasControl: (String) -> Bool = { $0.utf8.contains { $0 <= 0x20 || $0 == 0x7F } }
            if !isHTTP(sendSMSURL) || hasControl(sendSMSURL) || sendSMSURL.contains("#") { return .sendSMSURL }
            if username.isEmpty { return .username }
            if let dlrURL, !isHTTP(dlrURL) || hasControl(dlrURL) || dlrURL.contains("%") || dlrURL.contains("#") {
                return .dlrURL
            }
            if let dlrToken, dlrToken.isEmpty || !dlrToken.utf8.allSatisfy(QueryEncoding.isUnreserved) { return .dlrToken }
            if let smsc, smsc.isEmpty { return .smsc }
            if !(0...31).contains(dlrMask.rawValue) { return .dlrMask }
            if timeout <= .zero { return .timeout }
            if connections < 1 { return .connections }
            if connectAttempts < 1 || retryDelay < .zero { return .retries }
            return nil
        }
    }
}

/// Why ``KannelSMSSender`` refused its settings.
public enum KannelSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    case sendSMSURL
    case username
    case dlrURL
    case dlrToken
    case smsc
    case dlrMask
    case timeout
    case connections
    case retries

    public var description: String {
        switch self {
        case .sendSMSURL: "sendSMSURL must be an http:// or https:// URL without spaces or a fragment"
        case .username: "username must not be empty"
        case .dlrURL: "dlrURL must be an http:// or https:// URL without spaces, '%' or '#'"
        case .dlrToken: "dlrToken must be non-empty and use only A-Z a-z 0-9 - . _ ~"
        case .smsc: "smsc must not be empty when given"
        case .dlrMask: "dlrMask must be between 0 and 31"
        case .timeout: "timeout must be positive"
        case .connections: "connections must be at least 1"
        case .retries: "connectAttempts must be at least 1 and retryDelay not negative"
        }
    }
}
