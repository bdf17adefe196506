// The APNs payload as Tandem built it before PushPresentation (kept as the reference the renderer's
// empty-presentation output is compared with, byte for byte).
@testable import TandemProviders
import TandemCore

/// The JSON body of one APNs notification:
///
///     {"aps":{"alert":{"title":<sender>,"body":<text>},"sound":"default","mutable-content":1},
///      "messageId":"<message GUID>","updateId":"<delivery key>"}
///
/// (`"badge":n` inside `aps` when configured.) `messageId` and `updateId` are what the app acknowledges
/// with; `mutable-content` lets its notification service extension fetch the full content and ack
/// delivery before the alert shows.
///
/// The whole body stays within ``maximumBytes`` (Apple's 4 KB limit for alerts): a longer text is cut
/// on a character boundary and ends with "…" — the app fetches the full content. If the sender name alone
/// leaves no room, it is cut the same way. Not guaranteed: that a cut text reads well.
struct APNsPayload: Sendable, Hashable {
    /// Apple's limit for a regular (non-VoIP) notification body.
    static let maximumBytes = 4_096

    var title: String
    var body: String
    var sound: String?
    var badge: Int?
    var messageID: GUID
    var updateID: DeliveryKey

    init(title: String, body: String, sound: String?, badge: Int?, messageID: GUID, updateID: DeliveryKey) {
        self.title = title
        self.body = body
        self.sound = sound
        self.badge = badge
        self.messageID = messageID
        self.updateID = updateID
    }

    /// The UTF-8 JSON, at most `limit` bytes when the fixed parts fit at all.
    func encoded(limit: Int = maximumBytes) -> [UInt8] {
        let full = json(title: title, body: body)
        if full.utf8.count <= limit { return Array(full.utf8) }
        // Room for the texts: what is left once both are empty ("" is 2 bytes each).
        let fixed = json(title: "", body: "").utf8.count - 4
        let titleLength = min(PushText.jsonLength(title), max(limit - fixed - PushText.jsonLength(PushText.ellipsis), 2))
        let cutTitle = PushText.truncated(title, toJSONLength: titleLength)
        let cutBody = PushText.truncated(body, toJSONLength: limit - fixed - PushText.jsonLength(cutTitle))
        return Array(json(title: cutTitle, body: cutBody).utf8)
    }

    private func json(title: String, body: String) -> String {
        var out = "{\"aps\":{\"alert\":{\"title\":"
        JSONText.appendString(title, to: &out)
        out += ",\"body\":"
        JSONText.appendString(body, to: &out)
        out += "}"
        if let sound {
            out += ",\"sound\":"
            JSONText.appendString(sound, to: &out)
        }
        if let badge { out += ",\"badge\":\(badge)" }
        out += ",\"mutable-content\":1},\"messageId\":"
        JSONText.appendString(messageID.text, to: &out)
        out += ",\"updateId\":"
        JSONText.appendString(String(updateID.rawValue), to: &out)
        out += "}"
        return out
    }
}
