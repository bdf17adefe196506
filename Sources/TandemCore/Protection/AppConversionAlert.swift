/// An app whose PIN messages, over all its prefixes, are verified below the conversion threshold.
public struct AppConversionAlert: Sendable, Hashable {
    public let app: AppKey
    public let at: Timestamp
    public let sent: Int
    public let verified: Int

    public init(app: AppKey, at: Timestamp, sent: Int, verified: Int) {
        self.app = app
        self.at = at
        self.sent = sent
        self.verified = verified
    }
}
