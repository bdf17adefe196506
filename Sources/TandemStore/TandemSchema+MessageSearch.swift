/// Migration 20: deliveries indexed by number, for the operator's message search.
extension TandemSchema {
    /// `deliveries_msisdn_message (msisdn, message_id)` serves `GET /admin/messages?msisdn=`: the newest
    /// messages to a number, found without scanning every delivery. Migration 5 dropped a plain `msisdn`
    /// index that nothing read; this one has a reader, and costs one B-tree insert per delivery (a number
    /// never changes, so updates do not touch it). The partial `deliveries_inbox` index stays: the app's
    /// inbox reads it and it is smaller.
    public static let messageSearch = Migration(version: 20, name: "deliveries indexed by number for message search", sql: """
        CREATE INDEX deliveries_msisdn_message ON deliveries(msisdn, message_id);
        """)
}
