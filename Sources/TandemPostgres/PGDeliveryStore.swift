import Foundation
import TandemCore
import TandemStoreSupport

/// The scheduler's `DeliveryStore` on PostgreSQL, with SQLite's contract (`SQLiteDeliveryStore`):
///
/// - ``queueCommit(requests:inserts:changes:chain:)`` and ``appendLateEvents(_:at:)`` are each one writer job:
///   statements built here, on the caller's task, sent by the writer with the other jobs of its batch in one
///   pipeline. All of a call's rows commit together or none do; the outcome is known only after the COMMIT that
///   holds them. A chain is marked broken on the writer thread, before any later job of it is sent.
/// - A statement that must change one row checks it itself (`tandem_expect`), so a change naming a key with no
///   delivery fails its job with SQLSTATE 23503, as SQLite's foreign key does.
/// - Reads run on the reader pool and see every commit that has returned.
///
/// The rows are SQLite's, value for value: the same snapshot text (``SnapshotWriter``), derived columns
/// (``DeliveryColumns``), event log and provider references; status reports are queued for accounts with a
/// webhook, with the same payload (``StatusReportOutcome``).
public final class PGDeliveryStore: DeliveryStore {
    public let store: PGStore
    private let snapshots: SnapshotWriter

    public init(store: PGStore) {
        self.store = store
        snapshots = SnapshotWriter(catalog: store.policies)
    }

    /// `fence`: checked by the commit's first statement (``PGPartitionLeases/fenceSQL``), which also locks the lease
    /// rows until the commit ends; when it fails, the commit fails with ``PartitionLeaseLost``.
    public func queueCommit(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange],
                            acknowledgements: [BWMIAcknowledgementWrite], fence: CommitFence?, chain: CommitChain) -> PendingCommit {
        guard !inserts.isEmpty || !changes.isEmpty || !requests.isEmpty || !acknowledgements.isEmpty else {
            return PendingCommit(.success([]))
        }
        let pending = PendingCommit()
        let plan: CommitPlan
        do throws(PGError) {
            plan = try CommitPlan(requests: requests, inserts: inserts, changes: changes, acknowledgements: acknowledgements,
                                  fence: fence, snapshots: snapshots)
        } catch {
            // Fails in its place in the queue, so the chain's earlier commits are unaffected.
            store.writer.enqueue(PGWriteJob(statements: [PGStatement("SELECT tandem_expect(0, 1, '22000', $1)", ["\(error)"])],
                                            chain: chain, complete: { _ in pending.complete(.failure(error)) }))
            return pending
        }
        store.writer.enqueue(PGWriteJob(statements: plan.statements, chain: chain, complete: { [policies = store.policies] outcome in
            switch outcome {
            case .success(let results):
                policies.learn(plan.learnedPolicies(from: results))
                plan.recordAcknowledgements(from: results)
                pending.complete(.success(plan.keys(from: results)))
            case .failure(.server(let state, let message, _)) where state == PGPartitionLeases.leaseLostState:
                pending.complete(.failure(PartitionLeaseLost(message)))
            case .failure(let error):
                pending.complete(.failure(error))
            }
        }))
        return pending
    }

    public func appendLateEvents(_ events: [(DeliveryKey, DeliveryEvent)], at: Timestamp) async throws {
        guard !events.isEmpty else { return }
        var rows = EventRows()
        for (key, event) in events { rows.append(event, of: key, at: at) }
        _ = try await store.write([rows.statement])
    }

    public func deliveryKey(smsProvider provider: String, reference: String) async throws -> DeliveryKey? {
        try await store.read { db throws(PGError) in
            try db.execute("SELECT delivery_id FROM provider_refs WHERE provider = $1 AND ref = $2", [provider, reference])
                .scalar.flatMap { Int64($0) }.map { DeliveryKey($0) }
        }
    }

    public func inFlightKeys() async throws -> ClosedRange<DeliveryKey>? {
        let row = try await store.read { db throws(PGError) in
            try db.execute("SELECT min(id), max(id) FROM deliveries WHERE NOT final").rows.first
        }
        guard let row, let low = row[0].flatMap({ Int64($0) }), let high = row[1].flatMap({ Int64($0) }) else { return nil }
        return DeliveryKey(low)...DeliveryKey(high)
    }

    /// The deliveries not final with keys in `keys`, in key order; deliveries of one message share one
    /// ``MessageContent``. A snapshot naming a policy this process has not learned yet (written by another
    /// process) reloads the catalog and is decoded again.
    public func loadInFlight(in keys: ClosedRange<DeliveryKey>) async throws -> [StoredDelivery] {
        try await loadInFlight(where: "d.id BETWEEN $1 AND $2", [String(keys.lowerBound.rawValue), String(keys.upperBound.rawValue)])
    }

    /// The deliveries not final in `partition` of `map`, in key order: with the count every database has (256,
    /// fixed by schema 3), through the index on the in-flight deliveries' partitions (schema 4); with another, a scan
    /// of the in-flight deliveries.
    public func loadInFlight(partition: Int, of map: PartitionMap) async throws -> [StoredDelivery] {
        if map.count == PartitionMap.defaultCount {
            return try await loadInFlight(where: "d.id % \(PartitionMap.defaultCount) = $1", [String(partition)])
        }
        return try await loadInFlight(where: "d.id % $2 = $1", [String(partition), String(map.count)])
    }

    /// The deliveries not final matching `condition` (on `d`), decoded.
    private func loadInFlight(where condition: String, _ parameters: [String?]) async throws -> [StoredDelivery] {
        let rows = try await store.read { db throws(PGError) in
            try db.execute("""
                SELECT d.id, d.msisdn, d.snapshot, d.message_id, m.message_id, m.sender, m.body, m.reference, m.dcs,
                       p.app_key, m.presentation
                FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN apps p ON p.id = m.app_id
                WHERE NOT d.final AND \(condition)
                ORDER BY d.id
                """, parameters).rows
        }
        var stored: [StoredDelivery] = []
        stored.reserveCapacity(rows.count)
        var contents: [String: MessageContent] = [:]
        var reloaded = false
        for row in rows {
            let key = Int64(row[0] ?? "") ?? 0
            let messageRow = row[3] ?? ""
            let content: MessageContent
            if let known = contents[messageRow] {
                content = known
            } else {
                content = try Self.content(row, key: key)
                contents[messageRow] = content
            }
            guard let snapshot = row[2] else { throw PGError.client("delivery #\(key) has no snapshot") }
            guard let recipient = DeliveryRecipient(storedText: row[1] ?? "") else {
                throw PGError.client("delivery #\(key): neither an E.164 number nor a device")
            }
            let delivery: Delivery
            do {
                delivery = try decode(snapshot)
            } catch is UnknownPolicyNumber where !reloaded {
                reloaded = true
                try await store.reloadPolicies()
                delivery = try decode(snapshot)
            }
            stored.append(StoredDelivery(key: DeliveryKey(key), recipient: recipient, content: content, delivery: delivery))
        }
        return stored
    }

    private func decode(_ snapshot: String) throws -> Delivery {
        if let fast = SnapshotReader.read(snapshot, policy: { [policies = store.policies] in policies.policy(numbered: $0) }) {
            return fast
        }
        return try store.policies.decoder().decode(Delivery.self, from: Data(snapshot.utf8))
    }

    private static func content(_ row: [String?], key: Int64) throws -> MessageContent {
        guard let guid = row[4].flatMap(GUID.init) else { throw PGError.client("delivery #\(key): not a GUID: \(row[4] ?? "NULL")") }
        let presentation: PushPresentation
        do {
            presentation = try PresentationColumn.presentation(from: row[10])
        } catch {
            throw PGError.client("delivery #\(key): messages.presentation: \(error.message)")
        }
        return MessageContent(messageID: guid, sender: row[5] ?? "", body: row[6] ?? "", reference: row[7],
                              app: row[9].flatMap { AppKey($0) }, forceUCS2: row[8] == "8", presentation: presentation)
    }
}
