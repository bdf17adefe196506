/// Everything a push shows or carries beyond the message's own text, whatever API asked for it: one
/// value, stored with the message, from which each provider's one renderer builds its payload.
///
/// An empty presentation (``init()``) is the default and asks for nothing: the renderers then build the
/// payload every push had before presentations existed (sender as title, text as body, the provider's
/// configured sound and badge). Each field set here overrides the renderer's default for that field only.
///
/// Rules the renderers apply, so that a presentation cannot be rendered two ways:
/// - a `…LocKey` hides the matching literal text (the app shows its localised string instead): with
///   ``bodyLocKey`` no `body` is sent, not even the message text; with ``titleLocKey`` no `title`, not even
///   the sender;
/// - ``customData`` keys that a renderer needs for its own identifiers (`messageId`, `updateId`, `aps`, …)
///   are left out rather than sent twice.
///
/// Not guaranteed: that a provider accepts every combination (APNs refuses a critical sound without
/// Apple's entitlement; FCM refuses data keys that start with `google`). Wire mappings validate what their
/// API promises; the provider's verdict covers the rest.
public struct PushPresentation: Sendable, Hashable, Codable {
    // Alert texts (APNs `aps.alert`; FCM `notification`/`android.notification`).
    public var title: String?
    public var subtitle: String?
    /// Replaces the message text in the alert; nil shows the message text.
    public var body: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String] = []
    public var subtitleLocKey: String?
    public var subtitleLocArgs: [String] = []
    /// APNs `loc-key`: the localised body.
    public var bodyLocKey: String?
    public var bodyLocArgs: [String] = []
    public var launchImage: String?
    public var summaryArg: String?
    public var summaryArgCount: Int?

    // The rest of `aps`.
    public var badge: Int?
    public var sound: PushSound?
    public var threadID: String?
    public var category: String?
    public var targetContentID: String?
    public var contentAvailable: Bool?
    /// Nil leaves it to the renderer's default (Tandem's own apps get `mutable-content: 1`, so that their
    /// notification service extension can acknowledge delivery).
    public var mutableContent: Bool?

    /// Application data, keys unique, in the order they are rendered. APNs sends the values as JSON
    /// beside `aps`; FCM sends them in `data` as strings (text as is, anything else as compact JSON).
    public var customData: [JSONMember] = []

    /// FCM's Android-only fields; ignored for APNs.
    public var android = AndroidPresentation()

    public init() {}

    /// Whether this asks for nothing (renders as the default payload).
    public var isEmpty: Bool { self == PushPresentation() }

    /// Whether any `aps` field beyond the plain title and body is set: what decides whether FCM gets an
    /// `apns` block.
    public var hasAPNsFields: Bool {
        var plain = PushPresentation()
        plain.title = title
        plain.body = body
        plain.customData = customData
        plain.android = android
        return self != plain
    }
}

/// APNs `sound`: a file name, or the dictionary form for critical alerts.
public enum PushSound: Sendable, Hashable, Codable {
    /// `"sound": "<name>"`; `default` is the system sound.
    case named(String)
    /// `"sound": {"name": …, "critical": 0|1, "volume": 0.0…1.0}`.
    case dictionary(name: String, critical: Bool, volume: Double)

    public var name: String {
        switch self {
        case .named(let name), .dictionary(let name, _, _): name
        }
    }
}

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

    public init() {}

    /// Whether any field of `android.notification` (as opposed to `android` itself) is set.
    public var hasNotificationFields: Bool {
        tag != nil || clickAction != nil || ticker != nil || sticky != nil || eventTime != nil || localOnly != nil
            || notificationPriority != nil
    }
}

/// FCM's `AndroidNotification.notification_priority`; the wire strings live here only.
public enum AndroidNotificationPriority: String, Sendable, Hashable, Codable, CaseIterable {
    case unspecified = "PRIORITY_UNSPECIFIED"
    case min = "PRIORITY_MIN"
    case low = "PRIORITY_LOW"
    case `default` = "PRIORITY_DEFAULT"
    case high = "PRIORITY_HIGH"
    case max = "PRIORITY_MAX"
}
