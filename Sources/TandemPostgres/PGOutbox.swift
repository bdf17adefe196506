import Foundation
import TandemCore
import TandemStoreSupport

/// The status-report ``OutboxStore`` on PostgreSQL, with SQLite's contract (`SQLiteOutbox`): reports due oldest
/// first; a myMSP event is due only once every earlier event to the same URL was delivered or abandoned (a
/// receiver gets them in event order, retries included). Reads on the reader pool; updates are writer jobs.
public final class PGOutbox: OutboxStore {
    public let store: PGStore

    public init(store: PGStore) {
        self.store = store
    }

    public func dueReports(now: Timestamp, limit: Int) async throws -> [OutboxItem] {
        let rows = try await store.read { db throws(PGError) in
            try db.execute("""
                SELECT \(OutboxPayload.selectColumns) FROM outbox o \(OutboxPayload.joins)
                WHERE o.delivered_at IS NULL AND o.abandoned_at IS NULL AND o.next_attempt_at <= $1
                  AND (o.kind = 'statusReport' OR NOT EXISTS (
                      SELECT 1 FROM outbox earlier WHERE earlier.kind = 'mymspEvent' AND earlier.url = o.url
                        AND earlier.id < o.id AND earlier.delivered_at IS NULL AND earlier.abandoned_at IS NULL))
                ORDER BY o.next_attempt_at, o.id LIMIT $2
                """, [String(now.milliseconds), String(limit)]).rows
        }
        return try rows.map { row in
            let id = Int64(row[0] ?? "") ?? 0
            let content: OutboxItem.Content
            do throws(ColumnCodingError) {
                let stored = OutboxPayload.stored(deliveryKey: row[7].flatMap { Int64($0) }, acceptedAt: row[8].flatMap { Int64($0) },
                                                  messageID: row[9], msisdn: row[10], reference: row[11])
                content = try OutboxPayload.content(kind: row[3] ?? "", payload: row[4] ?? "", stored: stored)
            } catch {
                throw PGError.client("outbox report \(id): \(error.message)")
            }
            return OutboxItem(id: id, url: row[1] ?? "", format: WebhookFormat(rawValue: row[2] ?? "") ?? .json, content: content,
                              attempts: Int(row[5] ?? "") ?? 0, createdAt: Timestamp(milliseconds: Int64(row[6] ?? "") ?? 0))
        }
    }

    public func nextDue() async throws -> Timestamp? {
        try await store.read { db throws(PGError) in
            try db.execute("""
                SELECT next_attempt_at FROM outbox WHERE delivered_at IS NULL AND abandoned_at IS NULL
                ORDER BY next_attempt_at LIMIT 1
                """).scalar.flatMap { Int64($0) }.map(Timestamp.init(milliseconds:))
        }
    }

    public func markDelivered(_ id: Int64, attempts: Int, at: Timestamp) async throws {
        _ = try await store.write([PGStatement("UPDATE outbox SET attempts = $1, delivered_at = $2, last_error = NULL WHERE id = $3",
                                               [String(attempts), String(at.milliseconds), String(id)])])
    }

    public func reschedule(_ id: Int64, attempts: Int, next: Timestamp, error: String) async throws {
        _ = try await store.write([PGStatement("UPDATE outbox SET attempts = $1, next_attempt_at = $2, last_error = $3 WHERE id = $4",
                                               [String(attempts), String(next.milliseconds), error, String(id)])])
    }

    public func abandon(_ id: Int64, attempts: Int, at: Timestamp, error: String) async throws {
        _ = try await store.write([PGStatement("UPDATE outbox SET attempts = $1, abandoned_at = $2, last_error = $3 WHERE id = $4",
                                               [String(attempts), String(at.milliseconds), error, String(id)])])
    }

    /// Reports queued and neither delivered nor given up.
    public func backlog() async throws -> Int {
        try await store.read { db throws(PGError) in
            Int(try db.execute("SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND abandoned_at IS NULL").scalar ?? "") ?? 0
        }
    }
}
