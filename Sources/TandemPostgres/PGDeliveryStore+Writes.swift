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

/// The scheduler's `messages` rows for new deliveries, one statement for all: a row already stored (by its
/// request, or earlier) is kept as it is.
struct MessageRows: Sendable {
    /// Messages already stored by the same commit, or appended here.
    private var seen: Set<GUID>
    private var columns = ColumnArrays(count: 6)

    /// `stored`: messages the commit stores otherwise (its requests'), left out.
    init(stored: Set<GUID> = []) {
        seen = stored
    }

    var isEmpty: Bool { columns.isEmpty }

    mutating func append(_ content: MessageContent, at: Timestamp) throws(PGError) {
        guard seen.insert(content.messageID).inserted else { return }
        let values: [String?] = [content.messageID.text, content.sender, content.body, content.reference,
                                 String(at.milliseconds), try CommitPlan.presentationText(content)]
        columns.append(values)
    }

    var statement: PGStatement {
        PGStatement("""
            INSERT INTO messages (message_id, sender, body, reference, created_at, presentation)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::json[])
            ON CONFLICT (message_id) DO NOTHING
            """, columns.parameters)
    }
}

/// The `messages` rows of a commit's requests, one statement for all (the sender's account and the app by their
/// keys).
struct RequestMessageRows: Sendable {
    private(set) var ids: Set<GUID> = []
    private var columns = ColumnArrays(count: 20)

    var isEmpty: Bool { columns.isEmpty }

    mutating func append(_ message: MessageRecord) throws(PGError) {
        ids.insert(message.content.messageID)
        let groupings = (0..<3).map { index in index < message.customGroupings.count ? message.customGroupings[index] : nil }
        let values: [String?] = [message.content.messageID.text, message.account.text, message.appKey?.text,
                                 message.content.sender, message.content.body, message.bodyType, message.content.reference,
                                 message.messageType.wireName, message.allowedChannels.storedText,
                                 message.validUntil.map { String($0.milliseconds) }, groupings[0], groupings[1], groupings[2],
                                 message.dcs.map { String($0) }, message.richContent, message.fallbackFor?.text,
                                 String(message.createdAt.milliseconds), message.api,
                                 try CommitPlan.presentationText(message.content), message.extra]
        columns.append(values)
    }

    var statement: PGStatement {
        PGStatement("""
            INSERT INTO messages (message_id, account_id, app_id, sender, body, body_type, reference, message_type,
                                  allowed_channels, validity_until, custom_grouping, custom_grouping2, custom_grouping3,
                                  dcs, rich_content, fallback_for, created_at, api, presentation, extra)
            SELECT r.message_id, (SELECT id FROM accounts WHERE product_token = r.account),
                   (SELECT id FROM apps WHERE app_key = r.app), r.sender, r.body, r.body_type, r.reference, r.message_type,
                   r.allowed_channels, r.validity_until, r.custom_grouping, r.custom_grouping2, r.custom_grouping3, r.dcs,
                   r.rich_content, r.fallback_for, r.created_at, r.api, r.presentation, r.extra
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                        $9::text[], $10::bigint[], $11::text[], $12::text[], $13::text[], $14::integer[], $15::json[],
                        $16::text[], $17::bigint[], $18::text[], $19::json[], $20::json[]) WITH ORDINALITY
                AS r(message_id, account, app, sender, body, body_type, reference, message_type, allowed_channels,
                     validity_until, custom_grouping, custom_grouping2, custom_grouping3, dcs, rich_content, fallback_for,
                     created_at, api, presentation, extra, seq)
            ORDER BY r.seq
            """, columns.parameters)
    }
}

/// New deliveries with their first event, one statement for all. The keys are drawn from the table's sequence
/// in the order of the rows, and the statement answers them in that order.
///
/// **Keys.** Each row takes the next value `n` of the deliveries' sequence. A delivery given a partition `p` (a
/// cluster node's, docs/cluster.md) gets the key `n × 256 + p`, in partition `p` (`key mod 256`); one without gets
/// `n`, as a single server always has. Keys stay unique when one database is served by one server, then several
/// nodes, then one again: a partitioned key is at least 256 times the sequence value it was made from, so greater
/// than every key made before it, and a single server first moves the sequence past the greatest key
/// (``PGStore/advanceDeliveryKeys()``).
struct NewDeliveryRows: Sendable {
    private var columns = ColumnArrays(count: 16)

    /// The key made from the sequence value `sequenceValue` (SQL) in `partition` (SQL; nil: none).
    static func key(sequenceValue: String, partition: String?) -> String {
        partition.map { "\(sequenceValue) * \(PartitionMap.defaultCount) + \($0)" } ?? sequenceValue
    }

    var isEmpty: Bool { columns.isEmpty }
    var count: Int { columns.count }

    mutating func append(_ record: NewDeliveryRecord, columns delivery: DeliveryColumns, snapshot: String) {
        let values: [String?] = [record.content.messageID.text, record.recipient.storedText, delivery.state, delivery.status,
                                 delivery.channel, delivery.pushDeadline.pgText, delivery.readDeadline.pgText,
                                 delivery.expiresAt.pgText, delivery.final.pgText, snapshot, delivery.pushWithdrawn.pgText,
                                 delivery.pushed.pgText, String(record.at.milliseconds), record.event.logKind,
                                 record.event.logDetail, record.partition.map(String.init)]
        columns.append(values)
    }

    /// A row whose message is not stored inserts no delivery but still its event, which then fails the statement
    /// (the event's foreign key): the job fails, as SQLite's NOT NULL on `message_id` makes it fail.
    var statement: PGStatement {
        PGStatement("""
            WITH numbered AS MATERIALIZED (
                SELECT nextval(pg_get_serial_sequence('deliveries', 'id')) AS n, r.*
                FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
                            $8::bigint[], $9::boolean[], $10::text[], $11::boolean[], $12::boolean[], $13::bigint[],
                            $14::text[], $15::text[], $16::int[]) WITH ORDINALITY
                    AS r(message, msisdn, state, status, channel, push_deadline, read_deadline, expires_at, final,
                         snapshot, push_withdrawn, pushed, at, kind, detail, part, seq)),
            r AS MATERIALIZED (
                SELECT CASE WHEN part IS NULL THEN n ELSE \(Self.key(sequenceValue: "n", partition: "part")) END AS id, numbered.*
                FROM numbered),
            inserted AS (
                INSERT INTO deliveries (id, message_id, msisdn, state, status, channel, push_deadline, read_deadline,
                                        expires_at, final, snapshot, push_withdrawn, pushed, created_at, updated_at)
                SELECT r.id, m.id, r.msisdn, r.state, r.status, r.channel, r.push_deadline, r.read_deadline, r.expires_at,
                       r.final, r.snapshot, r.push_withdrawn, r.pushed, r.at, r.at
                FROM r JOIN messages m ON m.message_id = r.message),
            logged AS (INSERT INTO delivery_events (delivery_id, at, kind, detail) SELECT id, at, kind, detail FROM r)
            SELECT id FROM r ORDER BY seq
            """, columns.parameters)
    }
}

/// Changed deliveries, one statement for all: the snapshot and derived columns rewritten (all but `pushed`, fixed
/// when the delivery is routed). A delivery changed twice in one commit is written once, as it was last. A key
/// with no row fails the job with SQLSTATE 23503, naming the first such key.
struct ChangedDeliveryRows: Sendable {
    /// One row per delivery, in the order each was first changed; the place of each key's row.
    private var rows: [[String?]] = []
    private var places: [DeliveryKey: Int] = [:]

    var isEmpty: Bool { rows.isEmpty }

    mutating func append(_ key: DeliveryKey, columns: DeliveryColumns, snapshot: String, at: Timestamp) {
        let row: [String?] = [String(key.rawValue), columns.state, columns.status, columns.channel,
                              columns.pushDeadline.pgText, columns.readDeadline.pgText, columns.expiresAt.pgText,
                              columns.final.pgText, snapshot, columns.pushWithdrawn.pgText, String(at.milliseconds)]
        if let place = places[key] {
            rows[place] = row
        } else {
            places[key] = rows.count
            rows.append(row)
        }
    }

    var statement: PGStatement {
        var columns = ColumnArrays(count: 11)
        for row in rows { columns.append(row) }
        return PGStatement("""
            WITH u AS (
                SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[],
                                     $7::bigint[], $8::boolean[], $9::text[], $10::boolean[], $11::bigint[])
                    AS u(id, state, status, channel, push_deadline, read_deadline, expires_at, final, snapshot,
                         push_withdrawn, updated_at)),
            changed AS (
                UPDATE deliveries d SET state = u.state, status = u.status, channel = u.channel,
                    push_deadline = u.push_deadline, read_deadline = u.read_deadline, expires_at = u.expires_at,
                    final = u.final, snapshot = u.snapshot, push_withdrawn = u.push_withdrawn, updated_at = u.updated_at
                FROM u WHERE d.id = u.id RETURNING d.id)
            SELECT CASE WHEN count(*) = $12 THEN count(*)
                        ELSE tandem_expect(count(*), $12, '23503', 'no delivery with key '
                            || (SELECT min(u.id) FROM u WHERE u.id NOT IN (SELECT id FROM changed))) END
            FROM changed
            """, columns.parameters + [String(rows.count)])
    }
}

/// `delivery_events` rows, sent as one statement (a column per array).
struct EventRows: Sendable {
    private var columns = ColumnArrays(count: 4)

    var isEmpty: Bool { columns.isEmpty }

    mutating func append(_ event: DeliveryEvent, of key: DeliveryKey, at: Timestamp) {
        columns.append([String(key.rawValue), String(at.milliseconds), event.logKind, event.logDetail])
    }

    var statement: PGStatement {
        PGStatement("""
            INSERT INTO delivery_events (delivery_id, at, kind, detail)
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[])
            """, columns.parameters)
    }
}

/// Final status reports, queued in the outbox for accounts with a webhook: the outcome's JSON, built in Swift
/// (``StatusReportOutcome/storedText``); the relay reads the rest of the report from the stored delivery.
struct ReportRows: Sendable {
    private var columns = ColumnArrays(count: 3)

    var isEmpty: Bool { columns.isEmpty }

    /// The report of `effects` for the delivery `key` (nil: the one inserted last, see ``statement(keyOfLastInsert:)``),
    /// if it has one.
    mutating func append(_ effects: PersistedEffects, key: DeliveryKey?, delivery: Delivery, at: Timestamp) {
        guard let status = effects.report else { return }
        let outcome = StatusReportOutcome(status: status, at: at, delivery: delivery)
        columns.append([key.map { String($0.rawValue) } ?? "0", String(at.milliseconds), outcome.storedText])
    }

    /// One statement for every row; `keyOfLastInsert`: the delivery is the one this session inserted last (in
    /// `partition`, when it was given one: see ``NewDeliveryRows``).
    func statement(keyOfLastInsert: Bool, partition: Int? = nil) -> PGStatement {
        let delivery = keyOfLastInsert ? NewDeliveryRows.key(sequenceValue: "currval(pg_get_serial_sequence('deliveries', 'id'))",
                                                             partition: partition.map(String.init))
                                       : "r.delivery"
        return PGStatement("""
            WITH r AS (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[]) WITH ORDINALITY AS r(delivery, at, payload, seq))
            INSERT INTO outbox (delivery_id, url, format, payload, next_attempt_at, created_at)
            SELECT d.id, a.webhook_url, a.webhook_format, r.payload, r.at, r.at
            FROM r JOIN deliveries d ON d.id = \(delivery) JOIN messages m ON m.id = d.message_id
            JOIN accounts a ON a.id = m.account_id
            WHERE a.webhook_url IS NOT NULL
            ORDER BY r.seq
            """, columns.parameters)
    }
}
