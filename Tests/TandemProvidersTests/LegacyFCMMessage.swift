// The FCM message as Tandem built it before PushPresentation (kept as the reference the renderer's
// empty-presentation output is compared with).
@testable import TandemProviders
import Foundation
import TandemCore

/// The body of `POST /v1/projects/{id}/messages:send` for one registration token:
///
///     {"message":{"token":…,
///                 "data":{"messageId":…,"updateId":…,"sender":…,"body":…},
///                 "notification":{"title":<sender>,"body":<text>},
///                 "android":{"priority":"HIGH"|"NORMAL","ttl":"<n>s","collapse_key":<message id>}}}
///
/// `data` holds strings only (FCM's rule); `messageId` and `updateId` are what the app acknowledges
/// with. `notification` is left out when the settings say so. The text is cut (on a character boundary,
/// ending with "…") so that `data` and `notification` together stay within the payload limit — the app
/// fetches the full content. Not guaranteed: that a very long sender name fits (it is not cut).
struct LegacyFCMMessage: Sendable {
    let token: String
    let messageID: GUID
    let updateID: DeliveryKey
    let sender: String
    /// The text as sent (already cut to fit).
    private(set) var body: String
    let includeNotification: Bool
    let priority: Policy.PushPriority

    init(token: String, messageID: GUID, updateID: DeliveryKey, sender: String, text: String,
         includeNotification: Bool, priority: Policy.PushPriority, payloadLimit: Int) {
        self.token = token
        self.messageID = messageID
        self.updateID = updateID
        self.sender = sender
        self.includeNotification = includeNotification
        self.priority = priority
        self.body = text
        self.body = fitted(text, limit: payloadLimit)
    }

    /// The request body with `android.ttl` = `ttlSeconds`.
    func encoded(ttlSeconds: Int64) -> [UInt8] {
        let message = Envelope(message: .init(
            token: token, data: data(body), notification: includeNotification ? .init(title: sender, body: body) : nil,
            android: .init(priority: priority == .high ? "HIGH" : "NORMAL", ttl: "\(max(ttlSeconds, 0))s",
                           collapse_key: messageID.text)))
        return Self.json(message)
    }

    /// The bytes `data` and `notification` take as JSON: what FCM's payload limit counts.
    func payloadBytes(_ text: String) -> Int {
        Self.json(data(text)).count + (includeNotification ? Self.json(Notification(title: sender, body: text)).count : 0)
    }

    private func fitted(_ text: String, limit: Int) -> String {
        if payloadBytes(text) <= limit { return text }
        let copies = includeNotification ? 2 : 1
        let fixed = payloadBytes("") - 2 * copies
        return PushText.truncated(text, toJSONLength: max((limit - fixed) / copies, 0))
    }

    private func data(_ text: String) -> DataMembers {
        DataMembers(messageId: messageID.text, updateId: String(updateID.rawValue), sender: sender, body: text)
    }

    private static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Structs of strings always encode.
        return (try? Array(encoder.encode(value))) ?? []
    }

    private struct Envelope: Encodable {
        let message: Message
    }

    private struct Message: Encodable {
        let token: String
        let data: DataMembers
        let notification: Notification?
        let android: Android
    }

    private struct DataMembers: Encodable {
        let messageId: String
        let updateId: String
        let sender: String
        let body: String
    }

    private struct Notification: Encodable {
        let title: String
        let body: String
    }

    private struct Android: Encodable {
        let priority: String
        let ttl: String
        let collapse_key: String
    }
}
