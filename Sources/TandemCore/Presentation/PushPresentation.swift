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

    /// APNs `apns-collapse-id` (at most 64 bytes; longer is left out by the sender); nil: the message id.
    public var apnsCollapseID: String?
    /// APNs `apns-expiration`: the send time plus this, capped at the provider maximum; nil: the policy's TTL.
    public var apnsTimeToLive: Duration?

    /// Render in TIBCO BWMI's shape instead of Tandem's (see ``BWMIPush``); nil: Tandem's payload. Ignored when
    /// ``dataOnly`` is true (a data-only push stays data-only).
    public var bwmi: BWMIPush?

    /// True: the push carries ``customData`` and nothing else — no alert, sound, badge, sender, text or
    /// Tandem identifiers (so the app cannot acknowledge it), every other field here ignored. APNs sends it as
    /// a background push (`{"aps":{"content-available":1}, <custom data…>}`, `apns-push-type: background`,
    /// priority 5); FCM as a data message whose `data` is the custom data alone (values as strings) and
    /// without `notification`. What cospace push events are. Nil or false: an ordinary push.
    public var dataOnly: Bool?

    public init() {}

    /// Whether the push is the custom data alone (``dataOnly``).
    public var isDataOnly: Bool { dataOnly == true }

    /// Whether this asks for nothing (renders as the default payload): every field unset. Checked field by
    /// field rather than against ``empty``, which copied both values on every message (a test holds the
    /// list to the stored properties).
    public var isEmpty: Bool {
        title == nil && subtitle == nil && body == nil && titleLocKey == nil && titleLocArgs.isEmpty
            && subtitleLocKey == nil && subtitleLocArgs.isEmpty && bodyLocKey == nil && bodyLocArgs.isEmpty
            && launchImage == nil && summaryArg == nil && summaryArgCount == nil && badge == nil && sound == nil
            && threadID == nil && category == nil && targetContentID == nil && contentAvailable == nil
            && mutableContent == nil && customData.isEmpty && android == AndroidPresentation() && apnsCollapseID == nil
            && apnsTimeToLive == nil && bwmi == nil && dataOnly == nil
    }

    /// The presentation with nothing set: the default payload.
    public static let empty = PushPresentation()

    /// Whether any `aps` field beyond the plain title and body is set: what decides whether FCM gets an
    /// `apns` block.
    public var hasAPNsFields: Bool {
        var plain = PushPresentation()
        plain.title = title
        plain.body = body
        plain.customData = customData
        plain.android = android
        plain.apnsCollapseID = apnsCollapseID
        plain.apnsTimeToLive = apnsTimeToLive
        plain.dataOnly = dataOnly
        return self != plain
    }
}
