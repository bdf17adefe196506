import TandemCore

/// One FCM v1 send for one registration token: what ``FCMRenderer`` needs, kept until each attempt renders
/// it with the time to live left at that moment.
struct FCMMessage: Sendable {
    let token: String
    let messageID: GUID
    let updateID: DeliveryKey
    let sender: String
    let text: String
    let presentation: PushPresentation
    let priority: Policy.PushPriority
    let renderer: FCMRenderer

    /// The request body with `ttlSeconds` left (the presentation's own `ttl` wins when it sets one).
    func encoded(ttlSeconds: Int64) -> [UInt8] {
        renderer.payload(presentation, token: token, identifiers: PushIdentifiers.members(messageID: messageID, updateID: updateID),
                         sender: sender, text: text, priority: priority, ttlSeconds: ttlSeconds, collapseKey: messageID.text)
    }
}
