import TandemCore

/// The one APNs payload renderer: a ``PushPresentation`` plus the push's own texts and identifiers in,
/// the JSON body out. Pure; the sender supplies what is process-wide (the configured sound and badge).
///
/// An empty presentation renders exactly what Tandem sent before presentations existed (same members, order and escapes):
///
///     {"aps":{"alert":{"title":<title>,"body":<body>},"sound":<sound>,"badge":<n>,"mutable-content":1},
///      <identifiers…>}
///
/// With a presentation, `aps` is, in this order: `alert` (`title`, `subtitle`, `body`, `launch-image`,
/// `title-loc-key`, `title-loc-args`, `subtitle-loc-key`, `subtitle-loc-args`, `loc-key`, `loc-args`,
/// `summary-arg`, `summary-arg-count`), `sound`, `badge`, `thread-id`, `category`, `target-content-id`,
/// `content-available`, `mutable-content`; then the custom data, then the identifiers. A loc-key hides its
/// literal (see ``PushPresentation``); a custom key equal to `aps` or to an identifier's key is left out.
/// Android fields are ignored. A presentation with ``PushPresentation/bwmi`` renders BWMI's payload instead
/// (``BWMIPush``), unless it is data-only.
///
/// A data-only presentation (``PushPresentation/dataOnly``) renders as a background push and nothing else:
/// `{"aps":{"content-available":1}, <custom data…>}` — no alert, sound, badge or identifiers, nothing cut.
///
/// Only the title and the body are cut to fit ``maximumBytes`` (as the payload before presentations cut them).
/// Not guaranteed: that a payload whose other fields alone exceed the limit fits (APNs then refuses it).
public struct APNsRenderer: Sendable, Hashable {
    /// APNs' limit on a payload, in bytes.
    public static let maximumBytes = 4_096

    /// `aps.sound` when the presentation sets none; nil sends none.
    public var sound: String?
    /// `aps.badge` when the presentation sets none; nil sends none.
    public var badge: Int?
    /// `mutable-content: 1` when the presentation does not say, so the app's extension can acknowledge.
    public var mutableContent: Bool

    public init(sound: String?, badge: Int?, mutableContent: Bool = true) {
        self.sound = sound
        self.badge = badge
        self.mutableContent = mutableContent
    }

    /// The payload as UTF-8 JSON, the title and body cut so the whole stays within `limit` bytes when the
    /// other parts leave room.
    /// - Parameters:
    ///   - title: the alert title when the presentation sets none (today the sender's name); nil for none.
    ///   - body: the message text, shown unless the presentation replaces or localises it.
    ///   - identifiers: top-level members after `aps`, e.g. `messageId` and `updateId`.
    public func payload(_ presentation: PushPresentation, title: String?, body: String, identifiers: [JSONMember],
                        limit: Int = maximumBytes) -> [UInt8] {
        if presentation.isDataOnly { return Array(Self.background(presentation).compactText.utf8) }
        if let bwmi = presentation.bwmi {
            return Array(BWMIPayload.apns(bwmi, presentation, text: body, identifiers: identifiers, limit: limit).compactText.utf8)
        }
        let full = render(presentation, title: title, body: body, identifiers: identifiers).compactText
        if full.utf8.count <= limit { return Array(full.utf8) }
        let (shownTitle, shownBody) = texts(presentation, title: title, body: body)
        var blank = presentation
        blank.title = nil
        blank.body = nil
        let empty = render(blank, title: shownTitle.map { _ in "" }, body: "", identifiers: identifiers).compactText
        let fixed = empty.utf8.count - (shownTitle == nil ? 0 : 2) - (shownBody == nil ? 0 : 2)
        var cutTitle = shownTitle
        if let shownTitle {
            let titleLength = min(PushText.jsonLength(shownTitle), max(limit - fixed - PushText.jsonLength(PushText.ellipsis), 2))
            cutTitle = PushText.truncated(shownTitle, toJSONLength: titleLength)
        }
        let cutBody = PushText.truncated(shownBody ?? body, toJSONLength: limit - fixed - (cutTitle.map(PushText.jsonLength) ?? 0))
        var cut = presentation
        cut.title = nil
        cut.body = shownBody == nil ? nil : cutBody
        return Array(render(cut, title: cutTitle, body: cutBody, identifiers: identifiers).compactText.utf8)
    }

    /// The payload as a JSON tree, uncut.
    public func render(_ presentation: PushPresentation, title: String?, body: String, identifiers: [JSONMember]) -> JSONValue {
        if presentation.isDataOnly { return Self.background(presentation) }
        if let bwmi = presentation.bwmi {
            return BWMIPayload.apns(bwmi, presentation, text: body, identifiers: identifiers, limit: .max)
        }
        var members = [JSONMember(key: "aps", value: aps(presentation, title: title, body: body))]
        var taken: Set<String> = ["aps"]
        for identifier in identifiers { taken.insert(identifier.key) }
        members += presentation.customData.filter { !taken.contains($0.key) }
        members += identifiers
        return .object(members)
    }

    /// `aps` alone (FCM sends it in `apns.payload`).
    public func aps(_ presentation: PushPresentation, title: String?, body: String?) -> JSONValue {
        let p = presentation
        let (shownTitle, shownBody) = texts(p, title: title, body: body)
        var alert = JSONObjectBuilder()
        alert.add("title", shownTitle.map(JSONValue.string))
        alert.add("subtitle", (p.subtitleLocKey == nil ? p.subtitle : nil).map(JSONValue.string))
        alert.add("body", shownBody.map(JSONValue.string))
        alert.add("launch-image", p.launchImage.map(JSONValue.string))
        alert.add("title-loc-key", p.titleLocKey.map(JSONValue.string))
        alert.add("title-loc-args", Self.strings(p.titleLocArgs))
        alert.add("subtitle-loc-key", p.subtitleLocKey.map(JSONValue.string))
        alert.add("subtitle-loc-args", Self.strings(p.subtitleLocArgs))
        alert.add("loc-key", p.bodyLocKey.map(JSONValue.string))
        alert.add("loc-args", Self.strings(p.bodyLocArgs))
        alert.add("summary-arg", p.summaryArg.map(JSONValue.string))
        alert.add("summary-arg-count", p.summaryArgCount.map { .number(String($0)) })
        var aps = JSONObjectBuilder()
        aps.add("alert", alert.isEmpty ? nil : alert.value)
        aps.add("sound", p.sound.map(Self.sound) ?? sound.map(JSONValue.string))
        aps.add("badge", (p.badge ?? badge).map { .number(String($0)) })
        aps.add("thread-id", p.threadID.map(JSONValue.string))
        aps.add("category", p.category.map(JSONValue.string))
        aps.add("target-content-id", p.targetContentID.map(JSONValue.string))
        aps.add("content-available", p.contentAvailable == true ? .number("1") : nil)
        aps.add("mutable-content", (p.mutableContent ?? mutableContent) ? .number("1") : nil)
        return aps.value
    }

    /// A data-only presentation's payload: `content-available` and the custom data (an `aps` key left out).
    static func background(_ presentation: PushPresentation) -> JSONValue {
        .object([JSONMember(key: "aps", value: .object([JSONMember(key: "content-available", value: .number("1"))]))]
                + presentation.customData.filter { $0.key != "aps" })
    }

    /// The title and body the alert shows: a loc-key hides the literal, the presentation's text replaces the default.
    private func texts(_ p: PushPresentation, title: String?, body: String?) -> (title: String?, body: String?) {
        (p.titleLocKey == nil ? p.title ?? title : nil, p.bodyLocKey == nil ? p.body ?? body : nil)
    }

    private static func strings(_ values: [String]) -> JSONValue? {
        values.isEmpty ? nil : .array(values.map(JSONValue.string))
    }

    private static func sound(_ sound: PushSound) -> JSONValue {
        switch sound {
        case .named(let name):
            .string(name)
        case .dictionary(let name, let critical, let volume):
            .object([JSONMember(key: "name", value: .string(name)),
                     JSONMember(key: "critical", value: .number(critical ? "1" : "0")),
                     JSONMember(key: "volume", value: .number(volume.isFinite ? String(volume) : "1.0"))])
        }
    }
}
