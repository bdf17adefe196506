import Foundation
import TandemCore
import TandemStoreSupport

/// The status-report ``OutboxStore`` on Tandem's SQLite ``Store`` (`outbox`, migration 3). Reads go
/// through a pooled reader (blocking the calling thread for one indexed query); updates are group-commit
/// writes. myMSP events (`kind = 'mymspEvent'`, migration 26) are due one at a time per URL: an event
/// waits while an earlier one to the same URL is neither delivered nor abandoned, so a receiver gets them
/// in event order, retries included.
public final class SQLiteOutbox: OutboxStore {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    public func dueReports(now: Timestamp, limit: Int) async throws(StoreError) -> [OutboxItem] {
        let rows = try store.read { (db: Connection) throws(StoreError) -> [Row] in
            try db.query("""
                SELECT \(OutboxPayload.selectColumns) FROM outbox o \(OutboxPayload.joins)
                WHERE o.delivered_at IS NULL AND o.abandoned_at IS NULL AND o.next_attempt_at <= ?
                  AND \(OutboxPayload.mayGo)
                ORDER BY o.next_attempt_at, o.id LIMIT ?
                """, [.integer(now.milliseconds), .integer(Int64(limit))])
        }
        return try rows.map { (row) throws(StoreError) -> OutboxItem in
            // By position: the joined delivery's columns repeat the outbox row's names.
            let id = try row.get(0, as: Int64.self)
            let content: OutboxItem.Content
            let (kind, payload) = (try row.get(3, as: String.self), try row.get(4, as: String.self))
            let stored = OutboxPayload.stored(deliveryKey: try row.get(7, as: Int64?.self), acceptedAt: try row.get(8, as: Int64?.self),
                                              messageID: try row.get(9, as: String?.self), msisdn: try row.get(10, as: String?.self),
                                              reference: try row.get(11, as: String?.self))
            do throws(ColumnCodingError) {
                content = try OutboxPayload.content(kind: kind, payload: payload, stored: stored)
            } catch {
                throw .decoding(column: "outbox.payload", message: "report \(id): \(error.message)")
            }
            return OutboxItem(id: id, url: try row.get(1, as: String.self),
                              format: WebhookFormat(rawValue: try row.get(2, as: String.self)) ?? .json,
                              content: content, attempts: Int(try row.get(5, as: Int64.self)),
                              createdAt: Timestamp(milliseconds: try row.get(6, as: Int64.self)))
        }
    }

    public func nextDue() async throws(StoreError) -> Timestamp? {
        try store.read { (db: Connection) throws(StoreError) -> Timestamp? in
            try db.scalar("""
                SELECT o.next_attempt_at FROM outbox o WHERE o.delivered_at IS NULL AND o.abandoned_at IS NULL
                  AND \(OutboxPayload.mayGo)
                ORDER BY o.next_attempt_at LIMIT 1
                """, as: Int64.self).map(Timestamp.init(milliseconds:))
        }
    }

    public func markDelivered(_ id: Int64, attempts: Int, at: Timestamp) async throws(StoreError) {
        try await update("UPDATE outbox SET attempts = ?, delivered_at = ?, last_error = NULL WHERE id = ?",
                         [.integer(Int64(attempts)), .integer(at.milliseconds), .integer(id)])
    }

    public func reschedule(_ id: Int64, attempts: Int, next: Timestamp, error: String) async throws(StoreError) {
        try await update("UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
                         [.integer(Int64(attempts)), .integer(next.milliseconds), .text(error), .integer(id)])
    }

    public func abandon(_ id: Int64, attempts: Int, at: Timestamp, error: String) async throws(StoreError) {
        try await update("UPDATE outbox SET attempts = ?, abandoned_at = ?, last_error = ? WHERE id = ?",
                         [.integer(Int64(attempts)), .integer(at.milliseconds), .text(error), .integer(id)])
    }

    private func update(_ sql: String, _ bindings: [SQLValue]) async throws(StoreError) {
        try await store.write { (db: Connection) throws(StoreError) in
            _ = try db.run(sql, bindings)
        }
    }
}

extension Store {
    /// Status reports queued and neither delivered nor given up (the outbox's partial index holds exactly these).
    public func outboxBacklog() throws(StoreError) -> Int {
        try read { (db: Connection) throws(StoreError) -> Int in
            try db.scalar("SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND abandoned_at IS NULL", as: Int.self) ?? 0
        }
    }
}
