/// The JSON `payload` of an `outbox` row holding a final status report, as ``SQLiteDeliveryStore``
/// writes it (SQLite's `json_object`) and the webhook relay decodes it to build the sender's report.
///
/// Not guaranteed: a particular key order or whitespace — decode it, do not compare text.
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
