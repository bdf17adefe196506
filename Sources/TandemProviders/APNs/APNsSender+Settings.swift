import TandemCore

extension APNsSender {
    /// How the APNs provider connects and behaves; fixed for the sender's lifetime, checked by `init`.
    public struct Settings: Sendable {
        /// Production endpoint (override for tests and benchmarks).
        public var productionURL = "https://api.push.apple.com"
        /// Development endpoint, used for apps whose credentials say `sandbox`.
        public var sandboxURL = "https://api.sandbox.push.apple.com"
        /// The sender's own client: one curl multi loop, HTTP/2 streams multiplexed per host.
        public var client = HTTPClient.Configuration()
        /// How long one provider JWT is used before a new one is signed. Apple refuses tokens older than
        /// an hour and answers `TooManyProviderTokenUpdates` to a new one more often than every 20
        /// minutes, so this must lie within 20…50 minutes.
        public var tokenRefreshInterval: Duration = .seconds(40 * 60)
        /// Retries of 429, 5xx and transport failures (bounded by the push's TTL and lifetime too).
        public var retry = PushRetryPolicy()
        /// Time for one request, queueing for a stream included.
        public var requestTimeout: Duration = .seconds(15)
        /// `apns-push-type`.
        public var pushType = "alert"
        /// `aps.sound`; nil sends none (a silent alert).
        public var sound: String? = "default"
        /// `aps.badge`; nil (the default) leaves the app's badge as it is — Tandem does not know the
        /// app's unread count, and a fixed number would overwrite the app's own.
        public var badge: Int?
        /// The `apns-expiration` of a push whose policy TTL is `.providerMaximum`, and the cap on a
        /// `.limited` one. Apple documents no maximum; it stores undelivered notifications for "a
        /// limited period". An absent header does not mean "as long as possible" (Apple may then try
        /// only once), so Tandem always sends a date: now + 30 days by default.
        public var providerMaximumTTL: Duration = .seconds(30 * 24 * 3600)

        public init() {}

        /// Throws `.invalidSettings` naming the first bad value.
        func validate() throws(APNsSenderError) {
            func require(_ condition: Bool, _ message: String) throws(APNsSenderError) {
                if !condition { throw .invalidSettings(message) }
            }
            for (name, url) in [("productionURL", productionURL), ("sandboxURL", sandboxURL)] {
                try require(url.hasPrefix("https://") || url.hasPrefix("http://"), "\(name) must be an http(s) URL")
                try require(!url.hasSuffix("/"), "\(name) must not end with /")
            }
            try require(tokenRefreshInterval >= .seconds(20 * 60) && tokenRefreshInterval <= .seconds(50 * 60),
                        "tokenRefreshInterval must lie within 20…50 minutes")
            if let problem = retry.validationProblem { throw .invalidSettings("retry: \(problem)") }
            try require(requestTimeout > .zero, "requestTimeout must be positive")
            try require(!pushType.isEmpty && pushType.utf8.allSatisfy(HTTPToken.isTokenByte), "pushType must be a token")
            try require(badge.map { $0 >= 0 } ?? true, "badge must not be negative")
            try require(providerMaximumTTL > .zero, "providerMaximumTTL must be positive")
        }
    }
}

/// Why an ``APNsSender`` could not be created.
public enum APNsSenderError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidSettings(String)
    case client(HTTPClientError)

    public var description: String {
        switch self {
        case .invalidSettings(let message): "invalid APNs settings: \(message)"
        case .client(let error): "APNs HTTP client: \(error)"
        }
    }
}
