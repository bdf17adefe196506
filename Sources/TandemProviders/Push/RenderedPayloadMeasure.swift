import TandemCore

/// The intake's size check, with the renderers the senders use: a push whose payload exceeds APNs' or
/// FCM's limit even with its text cut as far as the renderer cuts it. Measured with the longest
/// identifiers Tandem sends (a GUID, a 19-digit UpdateID), so a push that passes here fits when sent.
public struct RenderedPayloadMeasure: PushPayloadMeasure {
    public let apns: APNsRenderer
    public let fcm: FCMRenderer

    public init(apns: APNsRenderer, fcm: FCMRenderer) {
        self.apns = apns
        self.fcm = fcm
    }

    public func oversize(_ content: MessageContent, platform: Platform) -> (bytes: Int, limit: Int)? {
        // A short push (nearly every one) fits on any platform: no need to render it to know.
        if let bound = Self.upperBound(content, apnsSound: apns.sound), bound <= min(APNsRenderer.maximumBytes, fcm.payloadLimit) {
            return nil
        }
        let identifiers = PushIdentifiers.members(messageID: content.messageID, updateID: DeliveryKey(Int64.max))
        switch platform {
        case .iOS:
            let bytes = apns.payload(content.presentation, title: content.sender, body: content.body, identifiers: identifiers).count
            return bytes > APNsRenderer.maximumBytes ? (bytes, APNsRenderer.maximumBytes) : nil
        case .android:
            let bytes = fcm.fittedPayloadBytes(content.presentation, text: content.body, identifiers: identifiers, sender: content.sender)
            return bytes > fcm.payloadLimit ? (bytes, fcm.payloadLimit) : nil
        case .windowsPhone:
            return nil
        }
    }

    /// More bytes than either renderer's payload for `content` can take (APNs' whole payload; FCM's `data`
    /// and `notification`), without rendering it: every text — the message's, the sender, each string the
    /// presentation sets, each custom data key and value — counted twice (a text may show in two places) and
    /// escaped at the worst (6 bytes a byte), each with room for a key and its punctuation, plus room for the
    /// fixed members (identifiers, `aps` flags, badge, priorities). Nil for a BWMI presentation, whose
    /// payload has a shape of its own: it is rendered.
    static func upperBound(_ content: MessageContent, apnsSound: String?) -> Int? {
        let p = content.presentation
        guard p.bwmi == nil else { return nil }
        var texts = content.body.utf8.count + content.sender.utf8.count + (apnsSound?.utf8.count ?? 0)
        var members = 3
        func add(_ text: String?) {
            guard let text else { return }
            texts += text.utf8.count
            members += 1
        }
        for text in [p.title, p.subtitle, p.body, p.titleLocKey, p.subtitleLocKey, p.bodyLocKey, p.launchImage, p.summaryArg,
                     p.threadID, p.category, p.targetContentID, p.sound?.name, p.apnsCollapseID, p.android.tag,
                     p.android.clickAction, p.android.ticker, p.android.collapseKey, p.android.restrictedPackageName] {
            add(text)
        }
        for args in [p.titleLocArgs, p.subtitleLocArgs, p.bodyLocArgs] {
            for arg in args { add(arg) }
        }
        for member in p.customData {
            add(member.key)
            switch member.value {
            case .string(let text): add(text)
            case .number(let literal): add(literal)
            case .object, .array, .bool, .null: add(member.value.compactText)
            }
        }
        // Per member: a key of up to 40 bytes with its quotes, colon and comma, twice; 512 for the rest.
        return 2 * 6 * texts + 2 * 48 * members + 512
    }
}
