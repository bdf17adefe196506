/// A number prefix whose PIN SMS for one app are stopped because too few of them were verified: the
/// signature of SMS pumping (the "users" never read the PIN; the attacker is paid per SMS delivered).
///
/// Stored, so that a restart keeps it; listed and lifted through the admin API.
public struct PrefixBlock: Sendable, Hashable {
    public let app: AppKey
    public let prefix: NumberPrefix
    public let region: RegionCode
    public let since: Timestamp
    public let until: Timestamp
    /// PIN SMS sent and verified inside the window when the block began.
    public let sent: Int
    public let verified: Int

    public init(app: AppKey, prefix: NumberPrefix, region: RegionCode, since: Timestamp, until: Timestamp, sent: Int, verified: Int) {
        self.app = app
        self.prefix = prefix
        self.region = region
        self.since = since
        self.until = until
        self.sent = sent
        self.verified = verified
    }

    public func isActive(now: Timestamp) -> Bool { now < until }
}
