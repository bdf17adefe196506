/// The fields of FCM's `android` and `android.notification` that a presentation may set.
public struct AndroidPresentation: Sendable, Hashable, Codable {
    public var tag: String?
    public var clickAction: String?
    public var ticker: String?
    public var sticky: Bool?
    /// Rendered as an RFC 3339 time in UTC.
    public var eventTime: Timestamp?
    public var localOnly: Bool?
    public var notificationPriority: AndroidNotificationPriority?
    /// Replaces the default collapse key (the message id).
    public var collapseKey: String?
    /// Replaces the policy's push TTL (whole seconds are sent).
    public var ttl: Duration?
    public var restrictedPackageName: String?
    /// Replaces the policy's Android message priority (`android.priority`); myMSP's `delaywhileidle=true`
    /// sends `normal`.
    public var priority: Policy.PushPriority?

    public init() {}

    /// Whether any field of `android.notification` (as opposed to `android` itself) is set.
    public var hasNotificationFields: Bool {
        tag != nil || clickAction != nil || ticker != nil || sticky != nil || eventTime != nil || localOnly != nil
            || notificationPriority != nil
    }
}

extension Policy.PushPriority: Codable {}
