import TandemCore

/// The JSON senders get from `GET /v1.0/message/{id}`: the message, then per recipient its status, how it
/// ended (channel, fallback and why), and its event timeline. Keys in a fixed order; times ISO 8601 UTC.
enum MessageViewEncoder {
    static func encode(_ message: MessageView) -> [UInt8] {
        var out = ""
        append(message, to: &out)
        return Array(out.utf8)
    }

    static func encode(list messages: [MessageView]) -> [UInt8] {
        var out = "{\"messages\":["
        for (index, message) in messages.enumerated() {
            if index > 0 { out += "," }
            append(message, to: &out)
        }
        out += "]}"
        return Array(out.utf8)
    }

    private static func append(_ message: MessageView, to out: inout String) {
        out += "{\"id\":" + JSONText.quoted(message.id.text)
        out += ",\"reference\":" + optional(message.reference)
        out += ",\"from\":" + JSONText.quoted(message.sender)
        out += ",\"appMessageType\":" + JSONText.quoted(message.messageType.wireName)
        out += ",\"appKey\":" + optional(message.appKey?.text)
        out += ",\"fallbackFor\":" + optional(message.fallbackFor?.text)
        out += ",\"createdAt\":" + JSONText.quoted(ISO8601.format(message.createdAt))
        out += ",\"recipients\":["
        for (index, recipient) in message.recipients.enumerated() {
            if index > 0 { out += "," }
            append(recipient, to: &out)
        }
        for (index, msisdn) in message.queued.enumerated() {
            if index > 0 || !message.recipients.isEmpty { out += "," }
            appendQueued(msisdn, since: message.createdAt, to: &out)
        }
        out += "]}"
    }

    private static func append(_ recipient: RecipientView, to out: inout String) {
        let delivery = recipient.delivery
        out += "{\"to\":" + JSONText.quoted(recipient.recipient.storedText)
        out += ",\"updateId\":\(recipient.key.rawValue)"
        out += ",\"status\":" + JSONText.quoted(delivery.status.wireName)
        out += ",\"final\":\(delivery.isFinal)"
        out += ",\"resolution\":" + optional(delivery.resolution?.rawValue)
        out += ",\"channel\":" + optional(delivery.resolution?.channel?.wireName)
        out += ",\"fallback\":\(delivery.smsCause?.isFallback == true)"
        out += ",\"smsCause\":" + optional(delivery.smsCause?.rawValue)
        out += ",\"rejectReason\":" + optional(delivery.rejectReason?.rawValue)
        out += ",\"pushTerminated\":\(delivery.pushTerminated)"
        out += ",\"queued\":false"
        out += ",\"updatedAt\":" + JSONText.quoted(ISO8601.format(recipient.updatedAt))
        out += ",\"events\":["
        for (index, event) in recipient.events.enumerated() {
            if index > 0 { out += "," }
            out += "{\"at\":" + JSONText.quoted(ISO8601.format(event.at)) + ",\"event\":" + JSONText.quoted(event.kind)
                + ",\"detail\":" + JSONText.quoted(event.detail) + "}"
        }
        out += "]}"
    }

    /// A recipient still in the message's spool: accepted, with no delivery (so no `updateId`) and no events yet.
    private static func appendQueued(_ msisdn: MSISDN, since accepted: Timestamp, to out: inout String) {
        out += "{\"to\":" + JSONText.quoted(msisdn.e164) + ",\"updateId\":null,\"status\":\"Accepted\",\"final\":false"
        out += ",\"resolution\":null,\"channel\":null,\"fallback\":false,\"smsCause\":null,\"rejectReason\":null"
        out += ",\"pushTerminated\":false,\"queued\":true,\"updatedAt\":" + JSONText.quoted(ISO8601.format(accepted))
        out += ",\"events\":[]}"
    }

    private static func optional(_ text: String?) -> String {
        text.map(JSONText.quoted) ?? "null"
    }
}
