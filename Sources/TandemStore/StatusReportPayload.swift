import TandemCore

/// The JSON `payload` of an `outbox` row holding a final status report, as ``SQLiteDeliveryStore``
/// writes it (with SQLite's `json_object`, keys in alphabetical order) and the webhook sender decodes it:
/// `{"at":…,"deliveryKey":…,"messageID":"…","msisdn":"+…","reference":…,"status":"Delivered"}`.
///
/// Not guaranteed: a particular key order or whitespace — decode it, do not compare text.
public struct StatusReportPayload: Sendable, Hashable, Codable {
    /// When the status became final (unix milliseconds).
    public var at: Timestamp
    public var deliveryKey: DeliveryKey
    public var messageID: GUID
    /// The recipient, E.164.
    public var msisdn: String
    /// The sender's `reference`, or nil when it gave none.
    public var reference: String?
    public var status: DeliveryStatus

    public init(at: Timestamp, deliveryKey: DeliveryKey, messageID: GUID, msisdn: String, reference: String?,
                status: DeliveryStatus) {
        self.at = at
        self.deliveryKey = deliveryKey
        self.messageID = messageID
        self.msisdn = msisdn
        self.reference = reference
        self.status = status
    }

    /// Inserts one report for delivery `?1` with status `?2` at `?3`; the row's `url` is `''` (resolved
    /// by the webhook sender) and it is due at once. Inserts nothing when the delivery does not exist.
    static let outboxInsertSQL = """
        INSERT INTO outbox (delivery_id, url, payload, next_attempt_at, created_at)
        SELECT d.id, '', json_object('at', ?3, 'deliveryKey', d.id, 'messageID', m.message_id,
                                     'msisdn', d.msisdn, 'reference', m.reference, 'status', ?2), ?3, ?3
        FROM deliveries d JOIN messages m ON m.id = d.message_id
        WHERE d.id = ?1
        """
}
