import TandemCore

/// A commit's changed deliveries as the rows the writer stores, flattened on the caller's task (as their
/// snapshots are): the writer thread binds values only. It no longer holds the deliveries and events themselves —
/// as the last holder of values another thread allocated and still shared, it spent about a quarter of its time
/// releasing them under the receipts benchmark.
struct ChangeRows: Sendable {
    /// One `deliveries` row to rewrite.
    struct Update: Sendable {
        let key: DeliveryKey
        let at: Timestamp
        let columns: DeliveryColumns
    }

    private(set) var updates: [Update] = []
    /// `delivery_events` rows, in order (``SQLiteDeliveryStore/eventColumns`` values each).
    private(set) var events: [SQLValue] = []
    /// Outbox report rows, in order (``SQLiteDeliveryStore/reportColumns`` values each).
    private(set) var reports: [SQLValue] = []
    /// `provider_refs` rows (provider, reference, delivery, at).
    private(set) var references: [SQLValue] = []
    /// Registrations to mark `Invalid`, with the token their push went to.
    private(set) var invalidations: [SQLiteDeliveryStore.Invalidation] = []

    init(_ changes: [DeliveryChange], writer: SnapshotWriter, into texts: inout SnapshotTexts) throws(StoreError) {
        updates.reserveCapacity(changes.count)
        events.reserveCapacity(changes.count * SQLiteDeliveryStore.eventColumns)
        for change in changes {
            updates.append(Update(key: change.key, at: change.at,
                                  columns: try DeliveryColumns(change.delivery, writer: writer, into: &texts)))
            SQLiteDeliveryStore.appendEventValues(change.event, of: change.key, at: change.at, to: &events)
            SQLiteDeliveryStore.appendReportValues(change.effects, of: change.key, delivery: change.delivery, at: change.at,
                                                   to: &reports)
            SQLiteDeliveryStore.appendInvalidations(change.effects, delivery: change.delivery, at: change.at, to: &invalidations)
            if case .smsSubmitted(let submission) = change.event {
                for reference in submission.references {
                    references += [.text(submission.provider), .text(reference), .integer(change.key.rawValue),
                                   .integer(change.at.milliseconds)]
                }
            }
        }
    }
}
