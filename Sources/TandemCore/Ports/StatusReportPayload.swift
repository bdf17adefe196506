import Foundation

/// A final status report for the sender's webhook, as the relay reads it from the `outbox`: how the delivery
/// ended (``StatusReportOutcome``, the row's JSON `payload`, built in Swift when the delivery became final)
/// with what is stored of the delivery and its message (``StoredReportValues``, read with the row) — assembled
/// by ``init(payload:stored:)``. Rows queued by earlier versions hold every member in their payload.
public struct StatusReportPayload: Sendable, Hashable, Codable {
    /// When the status became final (unix milliseconds).
    public var at: Timestamp
    /// When the delivery was accepted.
    public var acceptedAt: Timestamp
    public var deliveryKey: DeliveryKey
    public var messageID: GUID
    /// The recipient, E.164.
    public var msisdn: String
    /// The sender's `reference`, or nil when it gave none.
    public var reference: String?
    public var status: DeliveryStatus
    /// How the delivery ended (``Resolution``'s raw value).
    public var resolution: String?
    /// The channel the outcome came through, if any.
    public var channel: Channel?
    /// Whether the SMS was a fallback from an attempted push.
    public var fallback: Bool
    /// Why the delivery went to SMS (``SMSCause``'s raw value), if it did.
    public var smsCause: String?
    /// Why no channel could take it, for a rejected delivery (``RejectReason``'s raw value).
    public var rejectReason: String?

    public init(at: Timestamp, acceptedAt: Timestamp, deliveryKey: DeliveryKey, messageID: GUID, msisdn: String,
                reference: String?, status: DeliveryStatus, resolution: String? = nil, channel: Channel? = nil,
                fallback: Bool = false, smsCause: String? = nil, rejectReason: String? = nil) {
        self.at = at
        self.acceptedAt = acceptedAt
        self.deliveryKey = deliveryKey
        self.messageID = messageID
        self.msisdn = msisdn
        self.reference = reference
        self.status = status
        self.resolution = resolution
        self.channel = channel
        self.fallback = fallback
        self.smsCause = smsCause
        self.rejectReason = rejectReason
    }
}

extension StatusReportPayload {
    /// The report of an outbox row: its `payload` (a ``StatusReportOutcome``'s ``StatusReportOutcome/storedText``,
    /// or a whole report as earlier versions queued it) with `stored`, the values of its delivery and message.
    public init(payload: String, stored: StoredReportValues?) throws {
        let data = Data(payload.utf8)
        let outcome = try JSONDecoder().decode(StatusReportOutcome.self, from: data)
        let earlier = try JSONDecoder().decode(EarlierMembers.self, from: data)
        guard let acceptedAt = earlier.acceptedAt ?? stored?.acceptedAt,
              let deliveryKey = earlier.deliveryKey ?? stored?.deliveryKey,
              let messageID = earlier.messageID ?? stored?.messageID,
              let msisdn = earlier.msisdn ?? stored?.msisdn else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
                "a status report without its delivery (the outbox row names none that is stored)"))
        }
        self.init(at: outcome.at, acceptedAt: acceptedAt, deliveryKey: deliveryKey, messageID: messageID, msisdn: msisdn,
                  reference: earlier.messageID == nil ? stored?.reference : earlier.reference, status: outcome.status,
                  resolution: outcome.resolution, channel: outcome.channel, fallback: outcome.fallback,
                  smsCause: outcome.smsCause, rejectReason: outcome.rejectReason)
    }

    /// The members only a payload queued by an earlier version holds (it held the stored values too).
    private struct EarlierMembers: Decodable {
        var acceptedAt: Timestamp?
        var deliveryKey: DeliveryKey?
        var messageID: GUID?
        var msisdn: String?
        var reference: String?
    }
}

/// What a status report takes from the stored delivery and message, read with its outbox row.
public struct StoredReportValues: Sendable, Hashable {
    public var deliveryKey: DeliveryKey
    /// When the delivery was accepted (`deliveries.created_at`).
    public var acceptedAt: Timestamp
    public var messageID: GUID
    /// The recipient as stored (`deliveries.msisdn`).
    public var msisdn: String
    public var reference: String?

    public init(deliveryKey: DeliveryKey, acceptedAt: Timestamp, messageID: GUID, msisdn: String, reference: String?) {
        self.deliveryKey = deliveryKey
        self.acceptedAt = acceptedAt
        self.messageID = messageID
        self.msisdn = msisdn
        self.reference = reference
    }
}

/// How a delivery ended, as its status report tells it: written by the store into the outbox row's JSON
/// `payload` in the commit that makes the delivery final (the rest of the report is read from the stored
/// delivery when the relay sends it).
public struct StatusReportOutcome: Sendable, Hashable, Decodable {
    public var at: Timestamp
    public var status: DeliveryStatus
    /// How the delivery ended (``Resolution``'s raw value).
    public var resolution: String?
    /// The channel the outcome came through, if any.
    public var channel: Channel?
    /// Whether the SMS was a fallback from an attempted push.
    public var fallback: Bool
    /// Why the delivery went to SMS (``SMSCause``'s raw value), if it did.
    public var smsCause: String?
    /// Why no channel could take it, for a rejected delivery (``RejectReason``'s raw value).
    public var rejectReason: String?

    /// `delivery` reaching its final `status` at `at`.
    public init(status: DeliveryStatus, at: Timestamp, delivery: Delivery) {
        let cause = delivery.smsCause
        self.at = at
        self.status = status
        resolution = delivery.resolution?.rawValue
        channel = delivery.resolution?.channel
        fallback = cause?.isFallback == true
        smsCause = cause?.rawValue
        rejectReason = delivery.rejectReason?.rawValue
    }

    /// Compact JSON, every member present (absent values `null`).
    public var storedText: String {
        var out = "{\"at\":\(at.milliseconds),\"status\":"
        JSONText.appendString(status.wireName, to: &out)
        out += ",\"resolution\":"
        Self.append(resolution, to: &out)
        out += ",\"channel\":"
        Self.append(channel?.wireName, to: &out)
        out += fallback ? ",\"fallback\":true,\"smsCause\":" : ",\"fallback\":false,\"smsCause\":"
        Self.append(smsCause, to: &out)
        out += ",\"rejectReason\":"
        Self.append(rejectReason, to: &out)
        out += "}"
        return out
    }

    private static func append(_ text: String?, to out: inout String) {
        if let text { JSONText.appendString(text, to: &out) } else { out += "null" }
    }
}
