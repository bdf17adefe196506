import Foundation
import TandemCore
import TandemStoreSupport

/// The statements of one ``PGDeliveryStore`` commit, built on the caller's task: what SQLite's writer job does,
/// as statements that need no answer from the ones before them (the writer sends the whole batch at once).
/// Rows of one kind are one statement for the whole commit (a column per array: the server's work per row, not
/// per statement, is what a busy writer pays). Rows referring to a delivery inserted by the same commit find it
/// through the insert's own statement (a data-modifying `WITH`) or through `currval` of the deliveries' key
/// sequence right after it.
struct CommitPlan: Sendable {
    private(set) var statements: [PGStatement] = []
    /// Where each new delivery's key is, in the order of the inserts: the statement that inserted it and the row
    /// of that statement's result.
    private var deliveryKeys: [(statement: Int, row: Int)] = []
    /// Where each spelled-out policy's upsert is (its result is the row's number), with the policy.
    private var policyStatements: [(index: Int, policy: Policy)] = []
    /// Where each BWMI acknowledgement's statement is (its result: the outcome and the live count).
    private var acknowledgementStatements: [(index: Int, write: BWMIAcknowledgementWrite)] = []

    /// `fence`: the commit's first statement checks the leases and locks their rows until the commit ends.
    init(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange],
         acknowledgements: [BWMIAcknowledgementWrite] = [], fence: CommitFence? = nil, snapshots: SnapshotWriter) throws(PGError) {
        if let fence {
            statements.append(PGStatement(PGPartitionLeases.fenceSQL, PGPartitionLeases.fenceParameters(fence)))
        }
        var text: [UInt8] = []
        text.reserveCapacity((inserts.count + changes.count) * SnapshotWriter.typicalLength)
        var spelledOut: [SnapshotWriter.SpelledOut] = []
        func columns(_ delivery: Delivery) throws(PGError) -> (DeliveryColumns, String) {
            let start = text.count
            do {
                try snapshots.write(delivery, to: &text, spelledOut: &spelledOut)
            } catch {
                throw .client("the snapshot cannot be written: \(error.message)")
            }
            let columns = DeliveryColumns(delivery, snapshot: start..<text.count)
            return (columns, String(decoding: text[columns.snapshot], as: UTF8.self))
        }
        let newRows = try inserts.map { (record) throws(PGError) in (record, try columns(record.delivery)) }
        let changedRows = try changes.map { (change) throws(PGError) in (change, try columns(change.delivery)) }

        for spelled in spelledOut {
            policyStatements.append((statements.count, spelled.policy))
            statements.append(PGStatement("""
                INSERT INTO policies (body) VALUES ($1) ON CONFLICT (body) DO UPDATE SET body = excluded.body RETURNING id
                """, [String(decoding: spelled.body, as: UTF8.self)]))
        }
        var requestMessages = RequestMessageRows()
        for request in requests {
            for message in request.messages { try requestMessages.append(message) }
        }
        if !requestMessages.isEmpty { statements.append(requestMessages.statement) }
        for request in requests {
            if let idempotency = request.idempotency { statements.append(Self.insertIdempotency(idempotency)) }
            for spool in request.spools { statements.append(Self.insertSpool(spool)) }
            for progress in request.spoolProgress { statements.append(Self.advanceSpool(progress)) }
        }

        var events = EventRows()
        var reports = ReportRows()
        var invalidations: [PGStatement] = []
        // The scheduler's `messages` rows, but for the messages this commit's requests store themselves.
        var messages = MessageRows(stored: requestMessages.ids)
        for (record, _) in newRows { try messages.append(record.content, at: record.at) }
        if !messages.isEmpty { statements.append(messages.statement) }
        // New deliveries in runs of one statement each; a delivery with a report at routing (a rejected recipient,
        // rare) ends its run, so that its report can name it as the delivery inserted last.
        var run = NewDeliveryRows()
        func endRun() {
            guard !run.isEmpty else { return }
            deliveryKeys += (0..<run.count).map { (statements.count, $0) }
            statements.append(run.statement)
            run = NewDeliveryRows()
        }
        for (record, (columns, snapshot)) in newRows {
            run.append(record, columns: columns, snapshot: snapshot)
            if record.effects.report != nil {
                endRun()
                var single = ReportRows()
                single.append(record.effects, key: nil, delivery: record.delivery, at: record.at)
                statements.append(single.statement(keyOfLastInsert: true, partition: record.partition))
            }
            invalidations += Self.invalidations(record.effects, delivery: record.delivery, at: record.at)
        }
        endRun()
        var references: [String: (provider: String, reference: String, key: DeliveryKey, at: Timestamp)] = [:]
        var updates = ChangedDeliveryRows()
        for (change, (columns, snapshot)) in changedRows {
            updates.append(change.key, columns: columns, snapshot: snapshot, at: change.at)
            events.append(change.event, of: change.key, at: change.at)
            reports.append(change.effects, key: change.key, delivery: change.delivery, at: change.at)
            invalidations += Self.invalidations(change.effects, delivery: change.delivery, at: change.at)
            if case .smsSubmitted(let submission) = change.event {
                // An id the provider hands out again points at the newest delivery (the last one written wins).
                for reference in submission.references {
                    references[submission.provider + "\u{0}" + reference] = (submission.provider, reference, change.key, change.at)
                }
            }
        }
        if !updates.isEmpty { statements.append(updates.statement) }
        if !events.isEmpty { statements.append(events.statement) }
        statements += invalidations
        if !reports.isEmpty { statements.append(reports.statement(keyOfLastInsert: false)) }
        for acknowledgement in acknowledgements {
            acknowledgementStatements.append((statements.count, acknowledgement))
            statements.append(Self.acknowledgeBWMI(acknowledgement, hybrid: true))
        }
        if !references.isEmpty {
            let rows = references.values.sorted { ($0.provider, $0.reference) < ($1.provider, $1.reference) }
            statements.append(PGStatement("""
                INSERT INTO provider_refs (provider, ref, delivery_id, created_at)
                SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[])
                ON CONFLICT (provider, ref) DO UPDATE SET delivery_id = excluded.delivery_id, created_at = excluded.created_at
                """, [PGArray.literal(rows.map(\.provider)), PGArray.literal(rows.map(\.reference)),
                      PGArray.literal(rows.map { String($0.key.rawValue) }), PGArray.literal(rows.map { String($0.at.milliseconds) })]))
        }
    }

    /// Sets each BWMI acknowledgement's outcome and live count from the committed results.
    func recordAcknowledgements(from results: [PGResult]) {
        for (index, write) in acknowledgementStatements { Self.recordAcknowledgement(results[index], into: write) }
    }

    /// Sets `write`'s outcome and live count from the result of its ``acknowledgeBWMI(_:hybrid:)`` statement.
    static func recordAcknowledgement(_ result: PGResult, into write: BWMIAcknowledgementWrite) {
        guard let row = result.rows.first else { return }
        switch row[0] {
        case "acknowledged":
            write.outcome = .acknowledged
            write.liveCount = row[1].flatMap { Int($0) }
        case "alreadyAcknowledged": write.outcome = .alreadyAcknowledged
        default: write.outcome = .unknown
        }
    }

    /// The new deliveries' keys, in the order of the inserts, from the committed results.
    func keys(from results: [PGResult]) -> [DeliveryKey] {
        deliveryKeys.map { place in
            let rows = results[place.statement].rows
            return DeliveryKey(place.row < rows.count ? Int64(rows[place.row][0] ?? "") ?? 0 : 0)
        }
    }

    /// The spelled-out policies with the numbers of their rows, from the committed results.
    func learnedPolicies(from results: [PGResult]) -> [(policy: Policy, number: Int64)] {
        policyStatements.compactMap { entry in Int64(results[entry.index].scalar ?? "").map { (entry.policy, $0) } }
    }

    // MARK: - Statements

    static func presentationText(_ content: MessageContent) throws(PGError) -> String? {
        do {
            return try PresentationColumn.text(content.$presentation)
        } catch {
            throw .client("messages.presentation cannot be written: \(error.message)")
        }
    }

    /// Completes the request's claim on its key (or, without one, takes it); fails the job — so nothing of the
    /// request is stored — when the key is held by another request or completed already.
    private static func insertIdempotency(_ record: IdempotencyRecord) -> PGStatement {
        PGStatement("""
            WITH stored AS (
                INSERT INTO idempotency_keys (account_id, key, request_digest, status, content_type, body, created_at)
                VALUES ((SELECT id FROM accounts WHERE product_token = $1), $2, $3, $4, $5, decode($6, 'hex'), $7)
                ON CONFLICT (account_id, key) DO UPDATE SET status = excluded.status, content_type = excluded.content_type,
                    body = excluded.body, created_at = excluded.created_at
                WHERE idempotency_keys.status = 0 AND idempotency_keys.request_digest = excluded.request_digest
                RETURNING 1)
            SELECT tandem_expect(count(*), 1, '23505', $8) FROM stored
            """, [record.account.text, record.key, record.requestDigest, String(record.status), record.contentType,
                  record.body.map { String(format: "%02x", $0) }.joined(), String(record.createdAt.milliseconds),
                  "Idempotency-Key \(record.key) is held by another request"])
    }

    private static func insertSpool(_ spool: RecipientSpool) -> PGStatement {
        PGStatement("""
            INSERT INTO message_spools (message_id, recipients, total, account_id)
            SELECT id, $2, $3, coalesce(account_id, 0) FROM messages WHERE message_id = $1
            """, [spool.messageID.text, SpoolRecipientsColumn.text(spool.recipients), String(spool.recipients.count)])
    }

    /// Moves a spool's `started` on, or deletes the spool when its last recipient started; progress that does not
    /// continue from the stored `started` fails the job (SQLSTATE 23514, as SQLite's CHECK).
    private static func advanceSpool(_ progress: SpoolProgress) -> PGStatement {
        PGStatement("""
            WITH spool AS (SELECT id FROM messages WHERE message_id = $1),
                 moved AS (UPDATE message_spools SET started = $3 WHERE message_id = (SELECT id FROM spool)
                           AND started = $2 AND total > $3 RETURNING 1),
                 ended AS (DELETE FROM message_spools WHERE message_id = (SELECT id FROM spool)
                           AND started = $2 AND total = $3 RETURNING 1)
            SELECT tandem_expect((SELECT count(*) FROM moved) + (SELECT count(*) FROM ended), 1, '23514', $4)
            """, [progress.messageID.text, String(progress.before), String(progress.started),
                  "spool progress \(progress.before)..<\(progress.started) of message \(progress.messageID.text) does not continue the stored spool"])
    }

    /// A BWMI acknowledgement riding with its read receipt (SQLite's `Store.acknowledgeBWMI` with `hybrid`, as one
    /// statement): the device's live row is acknowledged; with no row, one is inserted already acknowledged; a row
    /// acknowledged or expired before is left alone. Answers the outcome and the device's live count after it (the
    /// count reads the statement's snapshot, which still sees the row as live: one is taken off). Without `hybrid`
    /// (``PGStore/acknowledgeBWMI(delivery:device:at:hybrid:)`` asked so), a delivery without a row is `unknown`.
    static func acknowledgeBWMI(_ write: BWMIAcknowledgementWrite, hybrid: Bool) -> PGStatement {
        PGStatement("""
            WITH registration AS (SELECT id FROM registrations WHERE device_id = $2),
                 acknowledged AS (UPDATE bwmi_notifications SET acked_at = $3
                                  WHERE delivery_id = $1 AND registration_id = (SELECT id FROM registration)
                                    AND acked_at IS NULL AND expires_at > $3 RETURNING 1),
                 inserted AS (INSERT INTO bwmi_notifications (delivery_id, registration_id, sent_at, expires_at, acked_at)
                              SELECT $1, id, $3, $3, $3 FROM registration
                              WHERE $4 AND NOT EXISTS (SELECT 1 FROM bwmi_notifications
                                                WHERE delivery_id = $1 AND registration_id = registration.id)
                              RETURNING 1)
            SELECT CASE WHEN EXISTS (SELECT 1 FROM acknowledged) OR EXISTS (SELECT 1 FROM inserted) THEN 'acknowledged'
                        WHEN EXISTS (SELECT 1 FROM registration)
                             AND ($4 OR EXISTS (SELECT 1 FROM bwmi_notifications
                                                WHERE delivery_id = $1 AND registration_id = (SELECT id FROM registration)))
                        THEN 'alreadyAcknowledged' ELSE 'unknown' END,
                   (SELECT count(*) FROM bwmi_notifications
                    WHERE registration_id = (SELECT id FROM registration) AND acked_at IS NULL AND expires_at > $3)
                   - (SELECT count(*) FROM acknowledged)
            """, [String(write.delivery.rawValue), write.device.text, String(write.at.milliseconds), hybrid.pgText])
    }

    /// The installs `effects` invalidates — each only while it still has the token the push went to.
    private static func invalidations(_ effects: PersistedEffects, delivery: Delivery, at: Timestamp) -> [PGStatement] {
        effects.invalidations.compactMap { device in
            guard let token = delivery.plan?.targets.first(where: { $0.deviceID == device })?.token else { return nil }
            return PGStatement("""
                UPDATE registrations SET status = 'Invalid', updated_at = $1
                WHERE device_id = $2 AND push_token = $3 AND status <> 'Invalid'
                """, [String(at.milliseconds), device.text, token.text])
        }
    }
}
