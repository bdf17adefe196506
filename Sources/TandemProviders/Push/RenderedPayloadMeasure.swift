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
}
