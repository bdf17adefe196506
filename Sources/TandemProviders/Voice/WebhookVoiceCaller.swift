import TandemCore

/// Places PIN voice calls through a generic HTTP webhook: `POST <url>` with
/// `Content-Type: application/json` and the body `{"to":"+31612345678","pin":"1234","language":"en_US"}`
/// (`language` is null when the device's language is unknown), plus `Authorization: Bearer <token>` when a
/// token is set. Whatever sits behind the URL (a voice platform's API, a small adapter) reads the PIN out.
///
/// A 2xx answer means the call was placed. Any other answer throws a ``PinDeliveryError`` with the status
/// and a short excerpt of the body; so does a transport failure. Nothing is retried: the device API's caller
/// asks again. The PIN is never logged, and is masked out of any error text quoting the webhook's answer.
///
/// Not guaranteed: that the call reached the phone (a 2xx says only that the platform took the request);
/// that a request which timed out did not place a call.
public struct WebhookVoiceCaller: VoiceCaller {
    public struct Settings: Sendable, Hashable {
        /// The webhook, `http://` or `https://`.
        public var url: String
        /// Sent as `Authorization: Bearer <token>`; read by the caller from the environment, never logged.
        public var bearerToken: String?
        public var timeout: Duration = .seconds(10)

        public init(url: String, bearerToken: String? = nil) {
            self.url = url
            self.bearerToken = bearerToken
        }
    }

    private let settings: Settings
    private let client: HTTPClient
    private let logger: Logger

    public init(settings: Settings, client: HTTPClient, logger: Logger = .discarding) throws(VoiceWebhookSettingsError) {
        guard settings.url.hasPrefix("http://") || settings.url.hasPrefix("https://"),
              !settings.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .url }
        if let token = settings.bearerToken,
           token.isEmpty || token.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { throw .bearerToken }
        guard settings.timeout > .zero else { throw .timeout }
        self.settings = settings
        self.client = client
        self.logger = logger
    }

    public func callPIN(_ message: PinMessage) async throws(PinDeliveryError) {
        var headers = [HTTPClientHeader("Content-Type", "application/json"), HTTPClientHeader("Accept", "*/*")]
        if let token = settings.bearerToken { headers.append(HTTPClientHeader("Authorization", "Bearer " + token)) }
        let request = HTTPClientRequest(method: .post, url: settings.url, headers: headers, body: Array(Self.body(message).utf8),
                                        timeout: settings.timeout, version: .http2)
        let failure: String
        do {
            let response = try await client.send(request)
            if (200..<300).contains(response.status) {
                logger.info("voice call placed", ["msisdn": .msisdn(message.msisdn), "status": .int(Int64(response.status))])
                return
            }
            failure = "voice webhook answered HTTP \(response.status): \(response.bodyExcerpt(hiding: message.pin))"
        } catch {
            failure = "voice webhook unreachable: \(error)"
        }
        logger.warning("voice call failed", ["msisdn": .msisdn(message.msisdn), "reason": .string(failure)])
        throw PinDeliveryError(failure)
    }

    /// `{"to":…,"pin":…,"language":…}` in that order.
    static func body(_ message: PinMessage) -> String {
        var json = "{\"to\":"
        JSONText.appendString(message.msisdn.e164, to: &json)
        json += ",\"pin\":"
        JSONText.appendString(message.pin, to: &json)
        json += ",\"language\":"
        if let language = message.language { JSONText.appendString(language, to: &json) } else { json += "null" }
        return json + "}"
    }
}

/// Why ``WebhookVoiceCaller`` refused its settings.
public enum VoiceWebhookSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    case url
    case bearerToken
    case timeout

    public var description: String {
        switch self {
        case .url: "the voice webhook URL must be http:// or https:// without spaces"
        case .bearerToken: "the voice webhook bearer token must be non-empty, without spaces or control characters"
        case .timeout: "the voice webhook timeout must be positive"
        }
    }
}
