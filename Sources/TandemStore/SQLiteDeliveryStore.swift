import Foundation
import TandemCore
import TandemStoreSupport

/// The scheduler's `DeliveryStore` on Tandem's SQLite ``Store`` (schema: ``TandemSchema/scheduler``).
///
/// - ``queueCommit(requests:inserts:changes:acknowledgements:chain:)`` and ``appendLateEvents(_:at:)`` are each one writer
///   job: one savepoint inside the writer's group-commit transaction. All of a call's rows commit together
///   or none do, and the outcome is known only after the COMMIT that holds them. A chain is marked broken on
///   the writer thread, before any later job runs.
/// - ``loadInFlight(in:)`` reads through a pooled reader and sees every commit that has returned.
///
/// Snapshots are encoded on the caller's task (once each) before the job is queued; the writer thread
/// only binds values. Errors are ``StoreError``; a change or late event naming a key with no delivery
/// fails with a foreign-key ``StoreError/constraint(extendedCode:message:sql:)`` (``StoreError/isForeignKeyViolation``).
///
/// Not guaranteed: that a change is consistent with what is stored (it may move a final delivery
/// again, or skip states — the state machine is the judge, not the store); that a late event goes to a
/// final delivery; that an existing `messages` row with an insert's GUID holds the same sender, body and
/// reference (a row already stored, or written by an earlier record of the same call, is reused as it
/// is); ordering between concurrent calls beyond the
/// writer's FIFO.
public final class SQLiteDeliveryStore: DeliveryStore {
    public let store: Store
    private let rowPool: CommitRows.Pool

    /// Wraps an open store whose schema includes migration 11 (``TandemSchema/migrations``).
    public init(store: Store) {
        self.store = store
        rowPool = CommitRows.Pool(writer: SnapshotWriter(catalog: store.policies))
    }

    /// Stores each request's message records (full `messages` rows) and idempotency key, then inserts the
    /// new deliveries (with their `messages` rows, one per distinct GUID, reusing a row
    /// that already has the GUID), appends one event per insert and per change, rewrites each changed
    /// delivery's snapshot and derived columns, queues one outbox row per report and marks each
    /// invalidated device's registration `Invalid` (a device with no registration is ignored); then marks each
    /// BWMI acknowledgement's row acknowledged (inserting it acknowledged when there is none) and sets its outcome
    /// and, when it was acknowledged, the device's live count after it (on the writer's warm pages: a reader's count
    /// after each commit starts on a cold page cache).
    ///
    /// The pending commit gives the new deliveries' keys, in the order of `inserts`, or a ``StoreError``:
    /// then nothing of the call was written. A commit with nothing to write is `[]` at once, without
    /// touching the database.
    ///
    /// `fence` must be nil: an SQLite database serves one node (its server lock refuses a second), which holds every
    /// partition; a delivery's ``NewDeliveryRecord/partition`` is ignored for the same reason.
    public func queueCommit(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange],
                            acknowledgements: [BWMIAcknowledgementWrite] = [], fence: CommitFence? = nil,
                            chain: CommitChain) -> PendingCommit {
        precondition(fence == nil, "an SQLite database serves one node: its commits are never fenced")
        guard !inserts.isEmpty || !changes.isEmpty || !requests.isEmpty || !acknowledgements.isEmpty else {
            return PendingCommit(.success([]))
        }
        let pending = PendingCommit()
        // Encoded here, on the caller's task; a failure to encode fails the commit in its place in the queue,
        // so the chain's earlier commits are unaffected.
        let commitRows = rowPool.take(deliveries: inserts.count + changes.count)
        let rows = Result { () throws(StoreError) in
            let newRows = try inserts.map { (record) throws(StoreError) in
                (record, try DeliveryColumns(record.delivery, into: commitRows))
            }
            try commitRows.addChanges(changes)
            return newRows
        }
        let invalidated = inserts.flatMap(\.effects.invalidations) + changes.flatMap(\.effects.invalidations)
        let live = store.bwmiLive
        store.queueWrite({ (db: Connection) throws(StoreError) -> Written in
            guard !chain.isBroken else {
                throw StoreError.transactionAborted(message: "an earlier commit this one builds on failed")
            }
            do throws(StoreError) {
                let written = try Self.write(requests: requests, inserts: try rows.get(), rows: commitRows, on: db)
                for acknowledgement in acknowledgements {
                    let outcome = try Store.acknowledgeBWMI(delivery: acknowledgement.delivery, device: acknowledgement.device,
                                                            at: acknowledgement.at, hybrid: true, on: db, live: live)
                    acknowledgement.outcome = outcome
                    if outcome == .acknowledged {
                        acknowledgement.liveCount = try Store.liveBWMICount(device: acknowledgement.device, at: acknowledgement.at,
                                                                            on: db, live: live)
                    }
                }
                return written
            } catch {
                // Before any later job of this transaction runs.
                chain.markBroken()
                live.forget(acknowledgements.map(\.device))
                throw error
            }
        }, completion: { [registrations = store.registrations, policies = store.policies, rowPool] outcome in
            rowPool.giveBack(commitRows)  // the job is done: its rows were bound (or never will be)
            switch outcome {
            case .success(let written): policies.learn(written.policies)  // committed: later snapshots may name them
            case .failure:
                chain.markBroken()
                live.forget(acknowledgements.map(\.device))  // their acknowledgements were rolled back
            }
            // Registrations marked Invalid: committed now, so readers may no longer be served the cached ones.
            if !invalidated.isEmpty { registrations.invalidate(invalidated) }
            pending.complete(outcome.map(\.keys).mapError { $0 })
        })
        return pending
    }

    /// The delivery an SMS part id belongs to (`provider_refs`), final or not.
    public func deliveryKey(smsProvider provider: String, reference: String) async throws(StoreError) -> DeliveryKey? {
        try store.read { (db: Connection) throws(StoreError) -> DeliveryKey? in
            try db.scalar("SELECT delivery_id FROM provider_refs WHERE provider = ? AND ref = ?",
                          [.text(provider), .text(reference)], as: Int64.self).map { DeliveryKey($0) }
        }
    }

    /// Appends each event to its delivery's log, in one writer job; the deliveries' rows are left as they are.
    /// - Throws: ``StoreError``, and then none was appended; a foreign-key violation when a key names no delivery.
    public func appendLateEvents(_ events: [(DeliveryKey, DeliveryEvent)], at: Timestamp) async throws(StoreError) {
        guard !events.isEmpty else { return }
        try await store.write { (db: Connection) throws(StoreError) in
            try Self.appendEvents(events, at: at, on: db)
        }
    }

    /// The least and greatest keys of deliveries with `final = 0`; nil when there are none.
    public func inFlightKeys() async throws(StoreError) -> ClosedRange<DeliveryKey>? {
        try store.read { (db: Connection) throws(StoreError) -> ClosedRange<DeliveryKey>? in
            guard let row = try db.queryFirst("SELECT min(id) AS low, max(id) AS high FROM deliveries WHERE final = 0"),
                  let low = try row.get("low", as: Int64?.self), let high = try row.get("high", as: Int64?.self) else { return nil }
            return DeliveryKey(low)...DeliveryKey(high)
        }
    }

    /// The deliveries with `final = 0` and keys in `keys`, ordered by key, each with its recipient, its message's
    /// content and its decoded snapshot. Deliveries of one message share one ``MessageContent`` (its strings are
    /// read once per message and call, not once per recipient).
    ///
    /// Runs on a thread of its own (a Dispatch worker), not in Swift's cooperative pool, so that start-up's reads
    /// leave that pool to the requests being served meanwhile; through a pooled reader, so several calls run at
    /// once. Not guaranteed: a consistent cut across calls (each is one statement, hence one snapshot; a delivery
    /// that became final between two calls is simply not in the later one).
    /// - Throws: ``StoreError/decoding(column:message:)`` when a row cannot be turned back into values
    ///   (a snapshot missing — written before migration 2 — or undecodable, a malformed GUID or MSISDN).
    public func loadInFlight(in keys: ClosedRange<DeliveryKey>) async throws(StoreError) -> [StoredDelivery] {
        try await read("d.id BETWEEN ? AND ?", [.integer(keys.lowerBound.rawValue), .integer(keys.upperBound.rawValue)])
    }

    /// The deliveries with `final = 0` whose keys fall in `partition` of `map`, ordered by key, as
    /// ``loadInFlight(in:)`` reads them. A scan of the in-flight deliveries: an SQLite database serves one node, which
    /// holds every partition and never loads one alone.
    public func loadInFlight(partition: Int, of map: PartitionMap) async throws(StoreError) -> [StoredDelivery] {
        try await read("d.id % ? = ?", [.integer(Int64(map.count)), .integer(Int64(partition))])
    }

    /// In-flight deliveries matching `condition` (on `d`, the deliveries), off the cooperative pool.
    private func read(_ condition: String, _ parameters: [SQLValue]) async throws(StoreError) -> [StoredDelivery] {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[StoredDelivery], StoreError>, Never>) in
            DispatchQueue.global().async { [store] in
                continuation.resume(returning: Result { () throws(StoreError) in try Self.read(condition, parameters, from: store) })
            }
        }
        return try result.get()
    }

    /// The columns of the in-flight query, by position (looked up by name per row, they were a measurable part of a load).
    private enum Column {
        static let key = 0, msisdn = 1, snapshot = 2, messageRow = 3, messageID = 4, sender = 5, body = 6, reference = 7, dcs = 8
        static let appKey = 9, presentation = 10
    }

    private static func read(_ condition: String, _ parameters: [SQLValue], from store: Store) throws(StoreError) -> [StoredDelivery] {
        try store.read { (db: Connection) throws(StoreError) -> [StoredDelivery] in
            let decoder = store.policies.decoder()
            var stored: [StoredDelivery] = []
            var contents: [Int64: MessageContent] = [:]
            try db.forEach("""
                SELECT d.id AS delivery_key, d.msisdn, d.snapshot, d.message_id AS message_row, m.message_id, m.sender,
                       m.body, m.reference, m.dcs, p.app_key, m.presentation
                FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN apps p ON p.id = m.app_id
                WHERE d.final = 0 AND \(condition)
                ORDER BY d.id
                """, parameters) { (row: Row) throws(StoreError) in
                let messageRow = try row.get(Column.messageRow, as: Int64.self)
                let content: MessageContent
                if let known = contents[messageRow] {
                    content = known
                } else {
                    content = try Self.content(from: row)
                    contents[messageRow] = content
                }
                stored.append(try Self.storedDelivery(from: row, content: content, policies: store.policies, decoder: decoder, on: db))
            }
            return stored
        }
    }

    private static func content(from row: Row) throws(StoreError) -> MessageContent {
        let guidText = try row.get(Column.messageID, as: String.self)
        guard let messageID = GUID(guidText) else {
            throw .decoding(column: "message_id", message: "delivery #\((try? row.get(Column.key, as: Int64.self)) ?? 0): not a GUID: \(guidText)")
        }
        return MessageContent(messageID: messageID, sender: try row.get(Column.sender, as: String.self),
                              body: try row.get(Column.body, as: String.self),
                              reference: try row.get(Column.reference, as: String?.self),
                              app: try row.get(Column.appKey, as: String?.self).flatMap { AppKey($0) },
                              forceUCS2: try row.get(Column.dcs, as: Int64?.self) == 8,
                              presentation: try presentation(from: try row.get(Column.presentation, as: String?.self)))
    }

    private static func storedDelivery(from row: Row, content: MessageContent, policies: PolicyCatalog, decoder: JSONDecoder,
                                       on db: Connection) throws(StoreError) -> StoredDelivery {
        let key = try row.get(Column.key, as: Int64.self)
        guard let snapshot = try row.get(Column.snapshot, as: String?.self) else {
            throw .decoding(column: "snapshot", message: "delivery #\(key) has no snapshot (written before migration 2)")
        }
        guard let recipient = DeliveryRecipient(storedText: try row.get(Column.msisdn, as: String.self)) else {
            throw .decoding(column: "msisdn", message: "delivery #\(key): neither an E.164 number nor a device")
        }
        return StoredDelivery(key: DeliveryKey(key), recipient: recipient, content: content,
                              delivery: try policies.decode(snapshot, key: key, with: decoder, on: db))
    }
}
