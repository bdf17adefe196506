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

    /// The partition of the outbox row `o` (see ``PGStore/setWorkPartitions(_:)``): a status report's is its
    /// delivery's, a myMSP event's its URL's (PostgreSQL's `hashtext`, the same on every node), so that a URL's
    /// events stay in one partition and the per-URL order below holds within it. 256: the partition count schema
    /// version 3 fixed (as `deliveries_in_flight_partition` of version 4).
    static let partitionOfRow = "(CASE WHEN o.kind = 'statusReport' THEN o.delivery_id % 256 ELSE hashtext(o.url) & 255 END)"

    /// The reports due at `now`, oldest first, at most `limit`; with a partition filter set on the store, only those
    /// of its partitions (none for an empty one, without a query).
    ///
    /// Filtered, the statement walks the same index (`outbox_due`, in `next_attempt_at` order) and drops the rows
    /// of other partitions as it goes: with due rows spread over the partitions and n nodes, about n rows read for
    /// each row returned (a long queue of one URL's events held back in another node's partition is read past on
    /// every call, as the unfiltered statement reads past it too). An expression index on the partition is not
    /// used for `= ANY(…)` with this order and limit (the planner keeps `outbox_due`; measured on PostgreSQL 15),
    /// so there is none.
    public func dueReports(now: Timestamp, limit: Int) async throws -> [OutboxItem] {
        let partitions = store.workPartitionFilter
        if partitions?.isEmpty == true { return [] }
        let rows = try await store.read { db throws(PGError) in
            var parameters: [String?] = [String(now.milliseconds), String(limit)]
            var filter = ""
            if let partitions {
                parameters.append(partitions.pgIntArray)
                filter = "\n  AND \(Self.partitionOfRow) = ANY($3::int[])"
            }
            return try db.execute("""
                SELECT \(OutboxPayload.selectColumns) FROM outbox o \(OutboxPayload.joins)
                WHERE o.delivered_at IS NULL AND o.abandoned_at IS NULL AND o.next_attempt_at <= $1\(filter)
                  AND \(OutboxPayload.mayGo)
                ORDER BY o.next_attempt_at, o.id LIMIT $2
                """, parameters).rows
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

    /// When the next report is due; with a partition filter set on the store, the next of its partitions (nil for
    /// an empty one, without a query).
    public func nextDue() async throws -> Timestamp? {
        guard let partitions = store.workPartitionFilter else {
            return try await store.read { db throws(PGError) in
                try db.execute("""
                    SELECT o.next_attempt_at FROM outbox o WHERE o.delivered_at IS NULL AND o.abandoned_at IS NULL
                      AND \(OutboxPayload.mayGo)
                    ORDER BY o.next_attempt_at LIMIT 1
                    """).scalar.flatMap { Int64($0) }.map(Timestamp.init(milliseconds:))
            }
        }
        if partitions.isEmpty { return nil }
        return try await store.read { db throws(PGError) in
            try db.execute("""
                SELECT o.next_attempt_at FROM outbox o WHERE o.delivered_at IS NULL AND o.abandoned_at IS NULL
                  AND \(Self.partitionOfRow) = ANY($1::int[]) AND \(OutboxPayload.mayGo)
                ORDER BY o.next_attempt_at LIMIT 1
                """, [partitions.pgIntArray]).scalar.flatMap { Int64($0) }.map(Timestamp.init(milliseconds:))
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
