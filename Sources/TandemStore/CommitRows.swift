import Synchronization
import TandemCore
import TandemStoreSupport

/// What one commit writes for its deliveries, flattened on the caller's task: every snapshot one after another in
/// one text, and the changed deliveries as rows (the columns to rewrite, event, report and provider-reference
/// values, invalidations). The writer thread binds values only; it no longer holds the deliveries and events
/// themselves (as the last holder of values another thread allocated and still shared, it spent about a quarter
/// of its time releasing them under the receipts benchmark).
///
/// The buffers are reused: taken from the store's ``Pool`` when a commit is queued and given back once it is done,
/// emptied with their capacity. Made per commit and freed on the writer's thread, they were the scheduler's
/// largest cost in malloc (tens of kilobytes each, glibc's slowest paths); one snapshot string per delivery cost
/// ~9% of the server's CPU before that.
///
/// `@unchecked Sendable` invariant: filled only by the task that queues the commit, before queueing it; then
/// read only by the writer thread while the job runs (the writer queue's lock orders the two); given back to the
/// pool once, after the job finished, and only then reused.
final class CommitRows: @unchecked Sendable {
    /// One `deliveries` row to rewrite.
    struct Update: Sendable {
        let key: DeliveryKey
        let at: Timestamp
        let columns: DeliveryColumns
    }

    /// The snapshots' UTF-8, one after another (each ``DeliveryColumns/snapshot`` is a range of it).
    private var text: [UInt8] = []
    private let writer: SnapshotWriter
    private(set) var updates: [Update] = []
    /// `delivery_events` rows, in order (``SQLiteDeliveryStore/eventColumns`` values each).
    private(set) var events: [SQLValue] = []
    /// Final status reports to queue, in order.
    private(set) var reports: [SQLiteDeliveryStore.Report] = []
    /// `provider_refs` rows (provider, reference, delivery, at).
    private(set) var references: [SQLValue] = []
    /// Registrations to mark `Invalid`, with the token their push went to.
    private(set) var invalidations: [SQLiteDeliveryStore.Invalidation] = []
    /// Policies the snapshots spelled out, each once: their `policies` rows are stored by the same job.
    private(set) var spelledOut: [SnapshotWriter.SpelledOut] = []

    private init(writer: SnapshotWriter) {
        self.writer = writer
    }

    /// Appends `delivery`'s snapshot; returns where it is.
    func appendSnapshot(of delivery: Delivery) throws(StoreError) -> Range<Int> {
        let start = text.count
        do {
            try writer.write(delivery, to: &text, spelledOut: &spelledOut)
        } catch {
            throw .encoding(column: "snapshot", message: error.message)
        }
        return start..<text.count
    }

    /// The snapshot at `range` (as ``appendSnapshot(of:)`` returned it).
    func snapshot(_ range: Range<Int>) -> String {
        String(decoding: text[range], as: UTF8.self)
    }

    /// Adds the rows of `changes`, in order.
    func addChanges(_ changes: [DeliveryChange]) throws(StoreError) {
        updates.reserveCapacity(changes.count)
        events.reserveCapacity(changes.count * SQLiteDeliveryStore.eventColumns)
        for change in changes {
            updates.append(Update(key: change.key, at: change.at, columns: try DeliveryColumns(change.delivery, into: self)))
            SQLiteDeliveryStore.appendEventValues(change.event, of: change.key, at: change.at, to: &events)
            SQLiteDeliveryStore.appendReport(change.effects, of: change.key, delivery: change.delivery, at: change.at,
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

    /// Empties every buffer, keeping its capacity.
    private func clear() {
        text.removeAll(keepingCapacity: true)
        updates.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        reports.removeAll(keepingCapacity: true)
        references.removeAll(keepingCapacity: true)
        invalidations.removeAll(keepingCapacity: true)
        spelledOut.removeAll(keepingCapacity: true)
    }

    /// Emptied ``CommitRows`` kept for the next commits: a few (about as many as commits in flight), none whose
    /// text grew beyond `largest` bytes (a bulk commit's: let go).
    final class Pool: Sendable {
        private let spares = Mutex<[CommitRows]>([])
        private let writer: SnapshotWriter
        static let kept = 4
        static let largest = 4 << 20

        init(writer: SnapshotWriter) {
            self.writer = writer
        }

        /// Empty rows, with room for about `deliveries` snapshots.
        func take(deliveries: Int) -> CommitRows {
            let rows = spares.withLock { $0.popLast() } ?? CommitRows(writer: writer)
            rows.text.reserveCapacity(deliveries * SnapshotWriter.typicalLength)
            return rows
        }

        /// Takes `rows` back once its commit is done (the writer thread no longer reads it).
        func giveBack(_ rows: CommitRows) {
            guard rows.text.count <= Self.largest else { return }
            rows.clear()
            spares.withLock { spares in
                if spares.count < Self.kept { spares.append(rows) }
            }
        }
    }
}

extension DeliveryColumns {
    /// `delivery`'s columns, its snapshot appended to `rows`.
    init(_ delivery: Delivery, into rows: CommitRows) throws(StoreError) {
        self.init(delivery, snapshot: try rows.appendSnapshot(of: delivery))
    }
}
