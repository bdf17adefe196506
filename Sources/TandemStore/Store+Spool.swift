import TandemCore
import TandemStoreSupport

/// Recipient spools (migration 7): the drainer's reads. The writes travel with deliveries, in
/// ``SQLiteDeliveryStore``'s transaction (``AcceptedRequest/spools`` and ``AcceptedRequest/spoolProgress``).
extension Store: RecipientSpoolStore {
    public func nextSpoolChunk(limit: Int, message: GUID?, afterQueue: Int64?) throws(StoreError) -> SpoolChunk? {
        precondition(limit > 0, "a chunk holds at least one recipient")
        return try read { (db: Connection) throws(StoreError) -> SpoolChunk? in
            let found: Row?
            if let message {
                found = try db.queryFirst(Self.spoolChunkSQL + " WHERE m.message_id = ?", [.text(message.text)])
            } else {
                var next: Row?
                if let afterQueue { next = try db.queryFirst(Self.nextSpoolSQL(afterQueue: true), [.integer(afterQueue)]) }
                if next == nil { next = try db.queryFirst(Self.nextSpoolSQL(afterQueue: false)) }
                found = next
            }
            guard let row = found else { return nil }
            let idText = try row.get("message_id", as: String.self)
            let total = Int(try row.get("total", as: Int64.self))
            let started = Int(try row.get("started", as: Int64.self))
            let recipients = try Self.spooledRecipients(try row.get("recipients", as: String.self), total: total,
                                                        from: started, limit: limit, message: idText)
            guard let id = GUID(idText),
                  let type = AppMessageType(wireName: try row.get("message_type", as: String.self)),
                  let channels = AllowedChannels(storedText: try row.get("allowed_channels", as: String?.self)) else {
                throw .decoding(column: "messages", message: "message \(idText) has a malformed stored value")
            }
            let app = try row.get("app_key", as: String?.self).flatMap(AppKey.init)
            let content = MessageContent(messageID: id, sender: try row.get("sender", as: String.self),
                                         body: try row.get("body", as: String.self),
                                         reference: try row.get("reference", as: String?.self), app: app,
                                         forceUCS2: try row.get("dcs", as: Int64?.self) == 8)
            return SpoolChunk(content: content,
                              routing: RoutingRequest(allowedChannels: channels, appKey: app, messageType: type),
                              validUntil: try row.get("validity_until", as: Int64?.self).map(Timestamp.init(milliseconds:)),
                              first: started, recipients: recipients, total: total,
                              queue: try row.get("queue", as: Int64.self))
        }
    }

    /// A spool's row with its message's fields; `queue` is the sending account's row id.
    static let spoolChunkSQL = """
        SELECT s.recipients, s.total, s.started, m.message_id, m.sender, m.body, m.reference, m.message_type,
               m.allowed_channels, m.validity_until, m.dcs, p.app_key, s.account_id AS queue
        FROM message_spools s JOIN messages m ON m.id = s.message_id LEFT JOIN apps p ON p.id = m.app_id
        """

    /// The oldest spool of the first queue (account) after `?`, or of the first queue: both walk
    /// `message_spools_queue` (account, message), one index step and no sort, however many spools wait.
    static func nextSpoolSQL(afterQueue: Bool) -> String {
        spoolChunkSQL + (afterQueue ? " WHERE s.account_id > ?" : "") + " ORDER BY s.account_id, s.message_id LIMIT 1"
    }

    /// Accepted recipients still waiting in spools, over all messages.
    public func queuedSpoolRecipients() throws(StoreError) -> Int {
        try read { (db: Connection) throws(StoreError) -> Int in
            try db.scalar("SELECT coalesce(sum(total - started), 0) FROM message_spools", as: Int.self) ?? 0
        }
    }

    /// ``SpoolRecipientsColumn/recipients(_:total:from:limit:message:)``, its error as this store's.
    static func spooledRecipients(_ list: String, total: Int, from: Int, limit: Int?,
                                  message: String) throws(StoreError) -> [MSISDN] {
        do throws(ColumnCodingError) {
            return try SpoolRecipientsColumn.recipients(list, total: total, from: from, limit: limit, message: message)
        } catch {
            throw .decoding(column: "message_spools.recipients", message: error.message)
        }
    }
}

extension SQLiteDeliveryStore {
    /// A spool's row, after its message's.
    static func insertSpool(_ spool: RecipientSpool, messageRow: Int64, on db: Connection) throws(StoreError) {
        try db.run("""
            INSERT INTO message_spools (message_id, recipients, total, account_id)
            VALUES (?1, ?2, ?3, (SELECT coalesce(account_id, 0) FROM messages WHERE id = ?1))
            """, [.integer(messageRow), .text(SpoolRecipientsColumn.text(spool.recipients)),
                  .integer(Int64(spool.recipients.count))])
    }

    /// Moves a spool's `started` on, or deletes the spool when its last recipient started. Progress that does
    /// not continue from the stored `started` (a recipient would start twice, or never) fails the job.
    static func advanceSpool(_ progress: SpoolProgress, on db: Connection) throws(StoreError) {
        let bindings: [SQLValue] = [.text(progress.messageID.text), .integer(Int64(progress.before)),
                                    .integer(Int64(progress.started))]
        let update = """
            UPDATE message_spools SET started = ?3
            WHERE message_id = (SELECT id FROM messages WHERE message_id = ?1) AND started = ?2 AND total > ?3
            """
        if try db.run(update, bindings) == 1 { return }
        let delete = """
            DELETE FROM message_spools
            WHERE message_id = (SELECT id FROM messages WHERE message_id = ?1) AND started = ?2 AND total = ?3
            """
        guard try db.run(delete, bindings) == 1 else {
            throw .constraint(extendedCode: .constraintCheck,
                              message: "spool progress \(progress.before)..<\(progress.started) of message "
                                  + "\(progress.messageID.text) does not continue the stored spool", sql: update)
        }
    }
}
