import TandemCore
import TandemStoreSupport

/// Recipient spools on PostgreSQL, as SQLite's `Store+Spool.swift`: the drainer's reads. The writes travel with
/// deliveries, in ``PGDeliveryStore``'s commit (`CommitPlan`).
extension PGStore: RecipientSpoolStore {
    /// The next chunk of the spools as SQLite's store gives it. With a partition filter set (``setWorkPartitions(_:)``),
    /// the drainer's walk (`message` nil) sees only the spools of those partitions, none for an empty one (without a
    /// query). A chunk of one `message` is not filtered: it is asked for by a request (a sender's cancel, or a
    /// fallback that must see every recipient), whose caller takes a nil answer as "nothing of it is left waiting".
    public func nextSpoolChunk(limit: Int, message: GUID?, afterQueue: Int64?) async throws(PGError) -> SpoolChunk? {
        precondition(limit > 0, "a chunk holds at least one recipient")
        let select = """
            SELECT s.recipients, s.total, s.started, m.message_id, m.sender, m.body, m.reference, m.message_type,
                   m.allowed_channels, m.validity_until, m.dcs, p.app_key, s.account_id
            FROM message_spools s JOIN messages m ON m.id = s.message_id LEFT JOIN apps p ON p.id = m.app_id
            """
        let partitions = message == nil ? workPartitionFilter : nil
        if partitions?.isEmpty == true { return nil }
        let result = try await read { db throws(PGError) -> PGResult in
            if let message { return try db.execute(select + " WHERE m.message_id = $1", [message.text]) }
            if let partitions { return try Self.nextSpool(db, select: select, afterQueue: afterQueue, partitions: partitions) }
            // The oldest spool of the first queue (account) after `afterQueue`, or of the first queue: both walk
            // `message_spools_queue` (account, message).
            if let afterQueue {
                let next = try db.execute(select + " WHERE s.account_id > $1 ORDER BY s.account_id, s.message_id LIMIT 1",
                                          [afterQueue.pgText])
                if !next.rows.isEmpty { return next }
            }
            return try db.execute(select + " ORDER BY s.account_id, s.message_id LIMIT 1")
        }
        guard let row = result.rows("spool").first else { return nil }
        let idText = try row.text(3)
        let total = Int(try row.int64(1))
        let started = Int(try row.int64(2))
        let recipients = try Self.spooledRecipients(try row.text(0), total: total, from: started, limit: limit, message: idText)
        guard let id = GUID(idText), let type = AppMessageType(wireName: try row.text(7)),
              let channels = AllowedChannels(storedText: row.optional(8)) else {
            throw .client("messages: message \(idText) has a malformed stored value")
        }
        let app = row.optional(11).flatMap(AppKey.init)
        let content = MessageContent(messageID: id, sender: try row.text(4), body: try row.text(5), reference: row.optional(6),
                                     app: app, forceUCS2: try row.optionalInt64(10) == 8)
        return SpoolChunk(content: content, routing: RoutingRequest(allowedChannels: channels, appKey: app, messageType: type),
                          validUntil: try row.optionalInt64(9).map(Timestamp.init(milliseconds:)), first: started,
                          recipients: recipients, total: total, queue: try row.int64(12))
    }

    /// The next spool as the unfiltered statements find it, among the spools of `partitions` alone (a spool is in
    /// its message's partition, `message_spools.message_id % 256`; see ``setWorkPartitions(_:)``). The same walk of
    /// `message_spools_queue`, dropping other partitions' spools as it goes: that table holds a row per message
    /// still spooling, few enough that no index on the partition is needed.
    private static func nextSpool(_ db: PGConnection, select: String, afterQueue: Int64?, partitions: [Int]) throws(PGError) -> PGResult {
        let mine = partitions.pgIntArray
        if let afterQueue {
            let next = try db.execute(select + """
                 WHERE s.account_id > $1 AND s.message_id % 256 = ANY($2::int[]) ORDER BY s.account_id, s.message_id LIMIT 1
                """, [afterQueue.pgText, mine])
            if !next.rows.isEmpty { return next }
        }
        return try db.execute(select + " WHERE s.message_id % 256 = ANY($1::int[]) ORDER BY s.account_id, s.message_id LIMIT 1",
                              [mine])
    }

    /// Accepted recipients still waiting in spools, over all messages; with a partition filter set
    /// (``setWorkPartitions(_:)``), in the spools of its partitions alone (0 for an empty one, without a query).
    public func queuedSpoolRecipients() async throws(PGError) -> Int {
        guard let partitions = workPartitionFilter else {
            return try await read { db throws(PGError) in
                Int(try db.execute("SELECT coalesce(sum(total - started), 0) FROM message_spools").scalar ?? "") ?? 0
            }
        }
        if partitions.isEmpty { return 0 }
        return try await read { db throws(PGError) in
            Int(try db.execute("SELECT coalesce(sum(total - started), 0) FROM message_spools WHERE message_id % 256 = ANY($1::int[])",
                               [partitions.pgIntArray]).scalar ?? "") ?? 0
        }
    }

    /// ``SpoolRecipientsColumn/recipients(_:total:from:limit:message:)``, its error as this store's.
    static func spooledRecipients(_ list: String, total: Int, from: Int, limit: Int?, message: String) throws(PGError) -> [MSISDN] {
        do throws(ColumnCodingError) {
            return try SpoolRecipientsColumn.recipients(list, total: total, from: from, limit: limit, message: message)
        } catch {
            throw .client("message_spools.recipients: \(error.message)")
        }
    }
}
