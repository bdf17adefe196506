import Foundation
import TandemCore

/// The operator's message search (``MessageSearch``): across every account, newest first.
extension Store: MessageSearch {
    /// The most recipients one found message carries (deliveries, then as many queued numbers); the rest are
    /// counted in ``FoundMessage/recipientCount``. A search by number shows only that number's recipients.
    public static let searchRecipientLimit = 50

    /// Reads in one snapshot. By id: the unique `message_id`; by reference: `messages_account_reference`, once
    /// per account; by number: `deliveries_msisdn_message` (migration 20).
    public func search(_ query: MessageQuery, limit: Int) throws(StoreError) -> [FoundMessage] {
        let select = """
            SELECT m.id, m.message_id, m.reference, m.sender, m.message_type, m.fallback_for, m.created_at, p.app_key,
                   m.api, m.extra, m.body, a.name AS account_name
            FROM messages m JOIN accounts a ON a.id = m.account_id LEFT JOIN apps p ON p.id = m.app_id
            """
        let limit = Int64(max(0, limit))
        let (sql, bindings, only): (String, [SQLValue], MSISDN?) = switch query {
        case .id(let id):
            (select + " WHERE m.message_id = ? LIMIT ?", [.text(id.text), .integer(limit)], nil)
        case .reference(let reference):
            (select + " WHERE m.account_id IN (SELECT id FROM accounts) AND m.reference = ? ORDER BY m.id DESC LIMIT ?",
             [.text(reference), .integer(limit)], nil)
        case .msisdn(let msisdn):
            (select + """
                 WHERE m.id IN (SELECT DISTINCT message_id FROM deliveries WHERE msisdn = ? ORDER BY message_id DESC LIMIT ?)
                ORDER BY m.id DESC
                """, [.text(msisdn.e164), .integer(limit)], msisdn)
        }
        return try readSnapshot { (db: Connection) throws(StoreError) -> [FoundMessage] in
            let decoder = policies.decoder()
            return try db.query(sql, bindings).map { (row) throws(StoreError) -> FoundMessage in
                let view = try Self.messageView(row, on: db, policies: policies, decoder: decoder, only: only,
                                                recipientLimit: only == nil ? Self.searchRecipientLimit : nil)
                return FoundMessage(accountName: try row.get("account_name", as: String.self), message: view,
                                    recipientCount: only == nil ? try Self.recipientCount(of: try row.get("id", as: Int64.self), on: db)
                                                                : view.recipients.count)
            }
        }
    }

    /// Deliveries plus numbers still waiting in the message's spool.
    private static func recipientCount(of message: Int64, on db: Connection) throws(StoreError) -> Int {
        let deliveries = try db.scalar("SELECT count(*) FROM deliveries WHERE message_id = ?", [.integer(message)], as: Int64.self) ?? 0
        let queued = try db.scalar("SELECT total - started FROM message_spools WHERE message_id = ?", [.integer(message)],
                                   as: Int64.self) ?? 0
        return Int(deliveries + queued)
    }
}
