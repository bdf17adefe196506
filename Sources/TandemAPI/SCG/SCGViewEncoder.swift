import TandemCore

/// The JSON of SCG reads. Keys in a fixed order; dates ISO 8601 UTC with milliseconds; absent values `null`.
///
/// A message request: `id`, the request's stored fields (`from`, `to`, `application_id`, `external_id`,
/// `expiry_time`, `scheduled_delivery_time`, `test_message_flag`, `campaign_id`, `failover`, those given),
/// `body`, `state`, `recipient_count`, `sent_count` (went out: SENT, DELIVERED or READ), `delivered_count`
/// (DELIVERED or READ), `read_count`, `failed_count` (FAILED or EXPIRED), `canceled_count`,
/// `created_date`, `last_update_date`.
///
/// A message: `id` (`<request id>-<n>`), `message_request_id`, `state`, `to_address`, `from_address`,
/// `channel` (`PUSH`, `SMS` or null), `sent_date`, `delivered_date`, `failure_code`, `failure_details`,
/// `created_date`, `last_update_date`.
enum SCGViewEncoder {
    static func request(_ message: MessageView) -> [UInt8] {
        var out = ""
        append(message, to: &out)
        return Array(out.utf8)
    }

    static func list(_ messages: [MessageView], total: Int) -> [UInt8] {
        var out = "{\"list\":["
        for (index, message) in messages.enumerated() {
            if index > 0 { out += "," }
            append(message, to: &out)
        }
        out += "],\"total\":\(total)}"
        return Array(out.utf8)
    }

    static func messages(_ entries: [SCGMessageEntry], createdAt: Timestamp) -> [UInt8] {
        var out = "{\"list\":["
        for (index, entry) in entries.enumerated() {
            if index > 0 { out += "," }
            append(entry, createdAt: createdAt, to: &out)
        }
        out += "],\"total\":\(entries.count)}"
        return Array(out.utf8)
    }

    static func message(_ entry: SCGMessageEntry, createdAt: Timestamp) -> [UInt8] {
        var out = ""
        append(entry, createdAt: createdAt, to: &out)
        return Array(out.utf8)
    }

    private static func append(_ message: MessageView, to out: inout String) {
        let entries = SCGMessageEntry.entries(message)
        let states = entries.map(\.state)
        out += "{\"id\":" + JSONText.quoted(message.id.text)
        for member in SCGMessageEntry.fields(message) {
            out += "," + JSONText.quoted(member.key) + ":" + member.value.compactText
        }
        out += ",\"body\":" + JSONText.quoted(message.body)
        out += ",\"state\":" + JSONText.quoted(SCGRequestState.of(states).rawValue)
        out += ",\"recipient_count\":\(states.count)"
        out += ",\"sent_count\":\(states.filter(\.wasSent).count)"
        out += ",\"delivered_count\":\(states.filter { $0 == .delivered || $0 == .read }.count)"
        out += ",\"read_count\":\(states.filter { $0 == .read }.count)"
        out += ",\"failed_count\":\(states.filter { $0 == .failed || $0 == .expired }.count)"
        out += ",\"canceled_count\":\(states.filter { $0 == .canceled }.count)"
        out += ",\"created_date\":" + date(message.createdAt)
        let updated = message.recipients.map(\.updatedAt).max().map { max($0, message.createdAt) } ?? message.createdAt
        out += ",\"last_update_date\":" + date(updated) + "}"
    }

    private static func append(_ entry: SCGMessageEntry, createdAt: Timestamp, to out: inout String) {
        out += "{\"id\":" + JSONText.quoted(entry.id)
        out += ",\"message_request_id\":" + JSONText.quoted(entry.requestID.text)
        out += ",\"state\":" + JSONText.quoted(entry.state.rawValue)
        out += ",\"to_address\":" + JSONText.quoted(entry.toAddress)
        out += ",\"from_address\":" + JSONText.quoted(entry.fromAddress)
        let channel: String? = switch entry.recipient?.delivery.resolution?.channel {
        case .push?: "PUSH"
        case .sms?: "SMS"
        case nil: entry.recipient.flatMap { $0.delivery.smsRequested ? "SMS" : $0.delivery.wasPushed ? "PUSH" : nil }
        }
        out += ",\"channel\":" + optional(channel)
        out += ",\"sent_date\":" + (entry.sentDate.map(date) ?? "null")
        out += ",\"delivered_date\":" + (entry.deliveredDate.map(date) ?? "null")
        let failure = entry.failure
        out += ",\"failure_code\":" + optional(failure?.code)
        out += ",\"failure_details\":" + optional(failure?.details)
        out += ",\"created_date\":" + date(createdAt)
        out += ",\"last_update_date\":" + date(entry.recipient?.updatedAt ?? createdAt) + "}"
    }

    private static func date(_ instant: Timestamp) -> String { JSONText.quoted(ISO8601.format(instant)) }

    private static func optional(_ text: String?) -> String { text.map(JSONText.quoted) ?? "null" }
}
