import TandemCore

extension FCMSender {
    /// How the FCM provider connects and behaves; fixed for the sender's lifetime, checked by `init`.
    public struct Settings: Sendable {
        /// The FCM HTTP v1 endpoint (override for tests).
        public var baseURL = "https://fcm.googleapis.com"
        /// Where access tokens are fetched; nil means each service account's own `token_uri`. The JWT
        /// assertion's `aud` is the URL actually used.
        public var tokenURLOverride: String?
        /// The sender's own client (sends and token fetches): one curl multi loop, HTTP/2 multiplexed.
        public var client = HTTPClient.Configuration()
        /// Retries of `QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`, 429/5xx and transport failures
        /// (bounded by the push's TTL and lifetime too).
        public var retry = PushRetryPolicy()
        /// Time for one request (a send or a token fetch), queueing included.
        public var requestTimeout: Duration = .seconds(15)
        /// An access token is replaced this long before Google says it expires.
        public var accessTokenMargin: Duration = .seconds(5 * 60)
        /// After Google refuses a service account's assertion (a revoked or wrong key), pushes for that
        /// app fail at once for this long instead of asking again each time.
        public var refusedTokenHoldOff: Duration = .seconds(60)
        /// Adds `notification {title, body}` so Android shows the message itself while the app is in the
        /// background. Without it the message is data-only and the app must post the notification (and
        /// can then acknowledge delivery first).
        public var includeNotification = true
        /// `android.ttl` of a push whose policy TTL is `.providerMaximum`, and the cap on a `.limited` one:
        /// FCM's maximum, 28 days.
        public var providerMaximumTTL: Duration = .seconds(2_419_200)
        /// FCM's limit on a message's `data` and `notification` together; the text is cut to fit.
        public var maximumPayloadBytes = 4_096

        public init() {}

        /// Throws `.invalidSettings` naming the first bad value.
        func validate() throws(FCMSenderError) {
            func require(_ condition: Bool, _ message: String) throws(FCMSenderError) {
                if !condition { throw .invalidSettings(message) }
            }
            func isURL(_ url: String) -> Bool { url.hasPrefix("https://") || url.hasPrefix("http://") }
            try require(isURL(baseURL) && !baseURL.hasSuffix("/"), "baseURL must be an http(s) URL without a trailing /")
            try require(tokenURLOverride.map(isURL) ?? true, "tokenURLOverride must be an http(s) URL")
            if let problem = retry.validationProblem { throw .invalidSettings("retry: \(problem)") }
            try require(requestTimeout > .zero, "requestTimeout must be positive")
            try require(accessTokenMargin >= .zero && accessTokenMargin < .seconds(30 * 60),
                        "accessTokenMargin must lie within 0…30 minutes")
            try require(refusedTokenHoldOff >= .zero, "refusedTokenHoldOff must not be negative")
            try require(providerMaximumTTL > .zero && providerMaximumTTL <= .seconds(2_419_200),
                        "providerMaximumTTL must lie within 1 s…28 days")
            try require(maximumPayloadBytes >= 1_024, "maximumPayloadBytes must be at least 1024")
        }
    }
}

/// Why an ``FCMSender`` could not be created.
public enum FCMSenderError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidSettings(String)
    case client(HTTPClientError)

    public var description: String {
        switch self {
        case .invalidSettings(let message): "invalid FCM settings: \(message)"
        case .client(let error): "FCM HTTP client: \(error)"
        }
    }
}
