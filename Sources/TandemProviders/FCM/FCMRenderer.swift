import TandemCore

/// The one FCM v1 request-body renderer: a ``PushPresentation`` plus the push's texts and identifiers in,
/// `{"message": …}` out. Pure.
///
/// An empty presentation renders the same JSON as Tandem sent before presentations existed, with the same escapes, in this
/// fixed member order (that encoder's `JSONEncoder` ordered members differently from run to run):
///
///     {"message":{"token":…,"data":{<identifiers…>,"sender":…,"body":…},
///                 "notification":{"title":<sender>,"body":<text>},
///                 "android":{"priority":"HIGH"|"NORMAL","ttl":"<n>s","collapse_key":<collapse key>}}}
///
/// A presentation adds, in this order:
/// - to `data` (FCM data values are strings): the custom data, text as is and anything else as compact
///   JSON (`9.0`, `true`, `{"a":1}`); a key equal to an identifier's, `sender` or `body` is left out;
/// - to `notification`: its title and body instead of the sender and the text (a loc-key hides the literal);
/// - to `android`: `restricted_package_name`, and `notification` with `title_loc_key`, `title_loc_args`,
///   `body_loc_key`, `body_loc_args`, `sound`, `tag`, `click_action`, `ticker`, `sticky`, `event_time`
///   (RFC 3339, UTC), `local_only`, `notification_priority`, `notification_count` (the badge);
///   `collapse_key` and `ttl` replace the defaults;
/// - `apns: {"payload": {"aps": …}}`, built by ``APNsRenderer/aps(_:title:body:)`` without texts, when the
///   presentation sets any `aps` field beyond title and body (iOS apps registered with FCM).
///
/// A presentation with ``PushPresentation/bwmi`` renders BWMI's payload instead (``BWMIPush``): `token`,
/// `data` and `android` (`priority`, `ttl`, `collapse_key`) only, whatever `includeNotification` says,
/// unless it is data-only.
///
/// A data-only presentation (``PushPresentation/dataOnly``) renders `token`, `data` with the custom data
/// alone (values as strings, as above; no identifiers, sender or text) and `android` with `priority`, `ttl`,
/// `collapse_key` (and `restricted_package_name`): a data message, whatever `includeNotification` says.
///
/// When `includeNotification` is false there is no `notification` and no `android.notification`: the app
/// builds its notification from `data`. The text is cut (on a character boundary, ending with "…") so that
/// `data` and `notification` stay within `payloadLimit`, as before.
/// Not guaranteed: that custom data leaves room (it is never cut), or that FCM accepts every data key
/// (it refuses `from`, `notification`, `message_type` and keys starting with `google` or `gcm`).
public struct FCMRenderer: Sendable, Hashable {
    public var includeNotification: Bool
    public var payloadLimit: Int

    public init(includeNotification: Bool, payloadLimit: Int) {
        self.includeNotification = includeNotification
        self.payloadLimit = payloadLimit
    }

    /// The request body for one registration token, as UTF-8 JSON.
    /// - Parameters:
    ///   - identifiers: the first members of `data`, string-valued (`messageId`, `updateId`).
    ///   - sender: `data.sender`, and the notification title unless the presentation sets one.
    ///   - text: the message text (cut here to fit the payload limit).
    ///   - ttlSeconds: `android.ttl` unless the presentation sets one; never sent negative.
    ///   - collapseKey: `android.collapse_key` unless the presentation sets one.
    public func payload(_ presentation: PushPresentation, token: String, identifiers: [JSONMember], sender: String,
                        text: String, priority: Policy.PushPriority, ttlSeconds: Int64, collapseKey: String) -> [UInt8] {
        Array(render(presentation, token: token, identifiers: identifiers, sender: sender, text: text, priority: priority,
                     ttlSeconds: ttlSeconds, collapseKey: collapseKey).compactText.utf8)
    }

    /// The request body as a JSON tree.
    public func render(_ presentation: PushPresentation, token: String, identifiers: [JSONMember], sender: String,
                       text: String, priority: Policy.PushPriority, ttlSeconds: Int64, collapseKey: String) -> JSONValue {
        let p = presentation
        if let bwmi = p.bwmi, !p.isDataOnly {
            var message = JSONObjectBuilder()
            message.add("token", .string(token))
            message.add("data", BWMIPayload.fcmData(bwmi, p, text: text, identifiers: identifiers, limit: payloadLimit))
            var android = JSONObjectBuilder()
            android.add("priority", .string(priority == .high ? "HIGH" : "NORMAL"))
            android.add("ttl", .string("\(max(ttlSeconds, 0))s"))
            android.add("collapse_key", .string(collapseKey))
            message.add("android", android.value)
            return .object([JSONMember(key: "message", value: message.value)])
        }
        let body = p.isDataOnly ? text : fitted(p, text: text, identifiers: identifiers, sender: sender)
        var message = JSONObjectBuilder()
        message.add("token", .string(token))
        message.add("data", p.isDataOnly ? Self.dataOnly(p) : data(p, identifiers: identifiers, sender: sender, body: body))
        let includeNotification = includeNotification && !p.isDataOnly
        if includeNotification { message.add("notification", notification(p, sender: sender, body: body)) }
        var android = JSONObjectBuilder()
        android.add("priority", .string((p.android.priority ?? priority) == .high ? "HIGH" : "NORMAL"))
        let ttl = p.android.ttl.map { $0.components.seconds } ?? ttlSeconds
        android.add("ttl", .string("\(max(ttl, 0))s"))
        android.add("collapse_key", .string(p.android.collapseKey ?? collapseKey))
        android.add("restricted_package_name", p.android.restrictedPackageName.map(JSONValue.string))
        if includeNotification { android.add("notification", androidNotification(p)) }
        message.add("android", android.value)
        if p.hasAPNsFields && !p.isDataOnly {
            var untitled = p  // the texts reach iOS through `notification`
            untitled.title = nil
            untitled.body = nil
            let aps = APNsRenderer(sound: nil, badge: nil, mutableContent: false).aps(untitled, title: nil, body: nil)
            message.add("apns", .object([JSONMember(key: "payload", value: .object([JSONMember(key: "aps", value: aps)]))]))
        }
        return .object([JSONMember(key: "message", value: message.value)])
    }

    /// A data-only push's `data`: the custom data, every value a string.
    static func dataOnly(_ p: PushPresentation) -> JSONValue {
        .object(p.customData.map(stringValued))
    }

    /// Text as is; anything else as its compact JSON (`2`, `true`, `{"a":1}`).
    private static func stringValued(_ member: JSONMember) -> JSONMember {
        switch member.value {
        case .string: member
        case .object, .array, .number, .bool, .null: JSONMember(key: member.key, value: .string(member.value.compactText))
        }
    }

    private func data(_ p: PushPresentation, identifiers: [JSONMember], sender: String, body: String) -> JSONValue {
        var taken: Set<String> = ["sender", "body"]
        for identifier in identifiers { taken.insert(identifier.key) }
        var members = identifiers
        members.append(JSONMember(key: "sender", value: .string(sender)))
        members.append(JSONMember(key: "body", value: .string(body)))
        for member in p.customData where !taken.contains(member.key) {
            members.append(Self.stringValued(member))
        }
        return .object(members)
    }

    /// Nil when the loc-keys leave it empty.
    private func notification(_ p: PushPresentation, sender: String, body: String) -> JSONValue? {
        var notification = JSONObjectBuilder()
        notification.add("title", p.titleLocKey == nil ? .string(p.title ?? sender) : nil)
        notification.add("body", p.bodyLocKey == nil ? .string(p.body ?? body) : nil)
        return notification.isEmpty ? nil : notification.value
    }

    private func androidNotification(_ p: PushPresentation) -> JSONValue? {
        let a = p.android
        var notification = JSONObjectBuilder()
        notification.add("title_loc_key", p.titleLocKey.map(JSONValue.string))
        notification.add("title_loc_args", p.titleLocArgs.isEmpty ? nil : .array(p.titleLocArgs.map(JSONValue.string)))
        notification.add("body_loc_key", p.bodyLocKey.map(JSONValue.string))
        notification.add("body_loc_args", p.bodyLocArgs.isEmpty ? nil : .array(p.bodyLocArgs.map(JSONValue.string)))
        notification.add("sound", p.sound.map { .string($0.name) })
        notification.add("tag", a.tag.map(JSONValue.string))
        notification.add("click_action", a.clickAction.map(JSONValue.string))
        notification.add("ticker", a.ticker.map(JSONValue.string))
        notification.add("sticky", a.sticky.map(JSONValue.bool))
        notification.add("event_time", a.eventTime.map { .string(ISO8601.format($0)) })
        notification.add("local_only", a.localOnly.map(JSONValue.bool))
        notification.add("notification_priority", a.notificationPriority.map { .string($0.rawValue) })
        notification.add("notification_count", p.badge.map { .number(String($0)) })
        return notification.isEmpty ? nil : notification.value
    }

    /// The bytes `data` and `notification` take once the text is cut to fit: over ``payloadLimit`` only when
    /// the presentation alone does not fit.
    public func fittedPayloadBytes(_ presentation: PushPresentation, text: String, identifiers: [JSONMember], sender: String) -> Int {
        if presentation.isDataOnly { return Self.dataOnly(presentation).compactText.utf8.count }
        if let bwmi = presentation.bwmi {
            return BWMIPayload.fcmData(bwmi, presentation, text: text, identifiers: identifiers, limit: payloadLimit).compactText.utf8.count
        }
        // The text as it is, measured once: what nearly every push is (only a text that does not fit is cut and measured again).
        let whole = payloadBytes(presentation, text: text, identifiers: identifiers, sender: sender)
        if whole <= payloadLimit { return whole }
        return payloadBytes(presentation, text: fitted(presentation, text: text, identifiers: identifiers, sender: sender),
                            identifiers: identifiers, sender: sender)
    }

    /// The bytes `data` and `notification` take: what FCM's payload limit counts.
    private func payloadBytes(_ p: PushPresentation, text: String, identifiers: [JSONMember], sender: String) -> Int {
        data(p, identifiers: identifiers, sender: sender, body: text).compactText.utf8.count
            + (includeNotification ? notification(p, sender: sender, body: text)?.compactText.utf8.count ?? 0 : 0)
    }

    private func fitted(_ p: PushPresentation, text: String, identifiers: [JSONMember], sender: String) -> String {
        if payloadBytes(p, text: text, identifiers: identifiers, sender: sender) <= payloadLimit { return text }
        let copies = includeNotification && p.bodyLocKey == nil && p.body == nil ? 2 : 1
        let fixed = payloadBytes(p, text: "", identifiers: identifiers, sender: sender) - 2 * copies
        return PushText.truncated(text, toJSONLength: max((payloadLimit - fixed) / copies, 0))
    }
}
