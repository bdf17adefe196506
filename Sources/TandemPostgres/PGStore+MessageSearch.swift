import TandemCore

/// The operator's message search (``MessageSearch``) on PostgreSQL, as SQLite's `Store+MessageSearch.swift`:
/// across every account, newest first, read in one snapshot.
extension PGStore: MessageSearch {
    /// The most recipients one found message carries (deliveries, then as many queued numbers); the rest are
    /// counted in ``FoundMessage/recipientCount``. A search by number shows only that number's recipients.
    public static let searchRecipientLimit = 50

    public func search(_ query: MessageQuery, limit: Int) async throws(PGError) -> [FoundMessage] {
        // The message columns, then the account's name and the message's recipients in all (deliveries + queued).
        let select = """
            SELECT \(Self.messageColumns), a.name,
                   (SELECT count(*) FROM deliveries WHERE message_id = m.id)
                   + coalesce((SELECT total - started FROM message_spools WHERE message_id = m.id), 0)
            FROM messages m JOIN accounts a ON a.id = m.account_id LEFT JOIN apps p ON p.id = m.app_id
            """
        let limit = String(max(0, limit))
        let (sql, parameters, only): (String, [String?], MSISDN?) = switch query {
        case .id(let id):
            (select + " WHERE m.message_id = $1 LIMIT $2", [id.text, limit], nil)
        case .reference(let reference):
            (select + " WHERE m.reference = $1 ORDER BY m.id DESC LIMIT $2", [reference, limit], nil)
        case .msisdn(let msisdn):
            (select + """
                 WHERE m.id IN (SELECT DISTINCT message_id FROM deliveries WHERE msisdn = $1 ORDER BY message_id DESC LIMIT $2)
                ORDER BY m.id DESC
                """, [msisdn.e164, limit], msisdn)
        }
        let stored = try await read { db throws(PGError) in
            try Self.inSnapshot(db) { () throws(PGError) in
                try StoredMessages.read(try db.execute(sql, parameters).rows, on: db, only: only,
                                        recipientLimit: only == nil ? Self.searchRecipientLimit : nil)
            }
        }
        return try await messageViews(stored).map { (found) throws(PGError) in
            FoundMessage(accountName: try found.row.text(11), message: found.view,
                         recipientCount: only == nil ? Int(try found.row.int64(12)) : found.view.recipients.count)
        }
    }
}
