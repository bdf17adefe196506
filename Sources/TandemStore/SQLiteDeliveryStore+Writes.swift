import Foundation
import TandemCore
import TandemStoreSupport

/// The statements of a ``SQLiteDeliveryStore`` write job. All run on the writer thread inside the
/// job's savepoint; any throw rolls the whole job back (the writer's `ROLLBACK TO`).
extension SQLiteDeliveryStore {
    /// What a job wrote that its caller learns once it has committed.
    struct Written: Sendable {
        /// The new deliveries' keys, in the order of the inserts.
        var keys: [DeliveryKey] = []
        /// The `policies` rows of the policies its snapshots spelled out.
        var policies: [(policy: Policy, number: Int64)] = []
    }

    static func write(
        requests: [AcceptedRequest], inserts: [(NewDeliveryRecord, DeliveryColumns)], rows: CommitRows,
        on db: Connection
    ) throws(StoreError) -> Written {
        var written = Written()
        for spelledOut in rows.spelledOut {
            written.policies.append((spelledOut.policy, try PolicyCatalog.store(body: spelledOut.body, on: db)))
        }
        var messageRows: [GUID: Int64] = [:]
        for request in requests {
            for message in request.messages {
                messageRows[message.content.messageID] = try insertMessage(message, on: db)
            }
            if let idempotency = request.idempotency { try insertIdempotency(idempotency, on: db) }
            for spool in request.spools {
                guard let messageRow = messageRows[spool.messageID] else {
                    throw .constraint(extendedCode: .constraintForeignKey,
                                      message: "spool of message \(spool.messageID.text) without its message record", sql: nil)
                }
                try insertSpool(spool, messageRow: messageRow, on: db)
            }
            for progress in request.spoolProgress { try advanceSpool(progress, on: db) }
        }
        written.keys.reserveCapacity(inserts.count)
        // The event log and the reports are appended at the end, many rows per statement: the new deliveries'
        // (built here, once their keys are known), then the changed ones' (built by the caller).
        var events: [SQLValue] = []
        events.reserveCapacity(inserts.count * eventColumns)
        var reports: [Report] = []
        var invalidations: [Invalidation] = []
        var bindings: [SQLValue] = []
        bindings.reserveCapacity(14)
        for (record, columns) in inserts {
            let messageRow = try messageRowID(for: record.content, at: record.at, known: &messageRows, on: db)
            let key = try insertDelivery(messageRow: messageRow, recipient: record.recipient, columns: columns,
                                         snapshot: rows.snapshot(columns.snapshot), at: record.at, bindings: &bindings, on: db)
            appendEventValues(record.event, of: key, at: record.at, to: &events)
            appendReport(record.effects, of: key, delivery: record.delivery, at: record.at, to: &reports)
            appendInvalidations(record.effects, delivery: record.delivery, at: record.at, to: &invalidations)
            written.keys.append(key)
        }
        for update in rows.updates {
            try updateDelivery(update.key, columns: update.columns, snapshot: rows.snapshot(update.columns.snapshot),
                               at: update.at, bindings: &bindings, on: db)
        }
        try insertRows(Self.appendEventsSQL, columns: eventColumns, events, on: db)
        try insertRows(Self.appendEventsSQL, columns: eventColumns, rows.events, on: db)
        for invalidation in invalidations + rows.invalidations { try invalidate(invalidation, on: db) }
        // Reports are queued only for accounts with a webhook. The statement opens a temporary B-tree for its
        // ORDER BY each time it runs (~0.7 µs per final delivery), so without any webhook it does not run.
        if !(reports.isEmpty && rows.reports.isEmpty),
           try db.scalar("SELECT EXISTS (SELECT 1 FROM accounts WHERE webhook_url IS NOT NULL)", as: Bool.self) == true {
            try runChunked(columns: Self.reportColumns, Self.reportValues(reports), on: db, Self.outboxInsertSQL(values:))
            try runChunked(columns: Self.reportColumns, Self.reportValues(rows.reports), on: db, Self.outboxInsertSQL(values:))
        }
        // One row per SMS part, so a report can be matched to its delivery even after it is final. An id the
        // provider hands out again points at the newest delivery.
        try insertRows("INSERT OR REPLACE INTO provider_refs (provider, ref, delivery_id, created_at)", columns: 4,
                       rows.references, on: db)
        return written
    }

    private static let appendEventsSQL = "INSERT INTO delivery_events (delivery_id, at, kind, detail)"

    /// Values per row of ``appendEventsSQL``.
    static let eventColumns = 4

    static func appendEventValues(_ event: DeliveryEvent, of key: DeliveryKey, at: Timestamp, to values: inout [SQLValue]) {
        values.append(.integer(key.rawValue))
        values.append(.integer(at.milliseconds))
        values.append(.text(event.logKind))
        values.append(.text(event.logDetail))
    }

    /// Appends each event to its delivery's log, many rows per statement.
    static func appendEvents(_ events: [(DeliveryKey, DeliveryEvent)], at: Timestamp, on db: Connection) throws(StoreError) {
        var values: [SQLValue] = []
        values.reserveCapacity(events.count * eventColumns)
        for (key, event) in events { appendEventValues(event, of: key, at: at, to: &values) }
        try insertRows(appendEventsSQL, columns: eventColumns, values, on: db)
    }

    /// `insert` (`INSERT … (columns)`) with `values` as rows of `columns` values, in order: 64, 16, 4 or 1 rows
    /// per statement — a statement per chunk instead of per row, from four statement texts per insert (each
    /// prepared once per connection).
    static func insertRows(_ insert: String, columns: Int, _ values: [SQLValue], on db: Connection) throws(StoreError) {
        try runChunked(columns: columns, values, on: db) { insert + " " + $0 }
    }

    /// Runs `statement(valuesClause)` over `values` as rows of `columns`, in chunks as ``insertRows(_:columns:_:on:)``
    /// does; the clause is `VALUES (?, …), …` with the chunk's rows.
    static func runChunked(columns: Int, _ values: [SQLValue], on db: Connection,
                           _ statement: (String) -> String) throws(StoreError) {
        let rows = values.count / columns
        var row = 0
        for size in [64, 16, 4, 1] {
            guard rows - row >= size else { continue }
            let tuple = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
            let sql = statement("VALUES " + Array(repeating: tuple, count: size).joined(separator: ", "))
            while rows - row >= size {
                try db.run(sql, Array(values[(row * columns)..<((row + size) * columns)]))
                row += size
            }
        }
    }

    /// The `messages` row for `content.messageID`: one known from earlier in this job, an existing row
    /// (reused as it is), or a new one with only the scheduler's columns set.
    private static func messageRowID(
        for content: MessageContent, at: Timestamp, known: inout [GUID: Int64], on db: Connection
    ) throws(StoreError) -> Int64 {
        if let id = known[content.messageID] { return id }
        let id: Int64
        if let existing = try db.scalar("SELECT id FROM messages WHERE message_id = ?", [.text(content.messageID.text)],
                                        as: Int64.self) {
            id = existing
        } else {
            try db.run("INSERT INTO messages (message_id, sender, body, reference, created_at, presentation) VALUES (?, ?, ?, ?, ?, ?)",
                       [.text(content.messageID.text), .text(content.sender), .text(content.body),
                        content.reference.sqlValue, .integer(at.milliseconds), try presentationText(content.$presentation).sqlValue])
            id = db.lastInsertRowID
        }
        known[content.messageID] = id
        return id
    }

    private static func insertMessage(_ message: MessageRecord, on db: Connection) throws(StoreError) -> Int64 {
        let groupings = (0..<3).map { index in index < message.customGroupings.count ? message.customGroupings[index] : nil }
        try db.run("""
            INSERT INTO messages (message_id, account_id, app_id, sender, body, body_type, reference, message_type,
                                  allowed_channels, validity_until, custom_grouping, custom_grouping2, custom_grouping3,
                                  dcs, rich_content, fallback_for, created_at, api, presentation, extra)
            VALUES (?, (SELECT id FROM accounts WHERE product_token = ?), (SELECT id FROM apps WHERE app_key = ?),
                    ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(message.content.messageID.text), .text(message.account.text), message.appKey?.text.sqlValue ?? .null,
                  .text(message.content.sender), .text(message.content.body), .text(message.bodyType),
                  message.content.reference.sqlValue, .text(message.messageType.wireName),
                  message.allowedChannels.storedText.sqlValue, message.validUntil?.milliseconds.sqlValue ?? .null,
                  groupings[0].sqlValue, groupings[1].sqlValue, groupings[2].sqlValue,
                  message.dcs.map { Int64($0) }.sqlValue, message.richContent.sqlValue,
                  message.fallbackFor?.text.sqlValue ?? .null, .integer(message.createdAt.milliseconds),
                  .text(message.api), try presentationText(message.content.$presentation).sqlValue, message.extra.sqlValue])
        return db.lastInsertRowID
    }

    /// Completes the request's claim on its key (or, without one, takes the key): fails the job — so nothing
    /// of the request is stored — when the key is held by another request or completed already.
    private static func insertIdempotency(_ record: IdempotencyRecord, on db: Connection) throws(StoreError) {
        let stored = try db.run("""
            INSERT INTO idempotency_keys (account_id, key, request_digest, status, content_type, body, created_at)
            VALUES ((SELECT id FROM accounts WHERE product_token = ?), ?, ?, ?, ?, ?, ?)
            ON CONFLICT (account_id, key) DO UPDATE SET status = excluded.status, content_type = excluded.content_type,
                body = excluded.body, created_at = excluded.created_at
            WHERE idempotency_keys.status = 0 AND idempotency_keys.request_digest = excluded.request_digest
            """, [.text(record.account.text), .text(record.key), .text(record.requestDigest),
                  .integer(Int64(record.status)), .text(record.contentType), .blob(record.body),
                  .integer(record.createdAt.milliseconds)])
        guard stored == 1 else {
            throw .constraint(extendedCode: .constraintPrimaryKey,
                              message: "Idempotency-Key \(record.key) is held by another request", sql: nil)
        }
    }

    private static func insertDelivery(
        messageRow: Int64, recipient: DeliveryRecipient, columns: DeliveryColumns, snapshot: String, at: Timestamp,
        bindings: inout [SQLValue], on db: Connection
    ) throws(StoreError) -> DeliveryKey {
        try db.run("""
            INSERT INTO deliveries (message_id, msisdn, state, status, channel, push_deadline, read_deadline,
                                    expires_at, final, snapshot, push_withdrawn, pushed, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, bindings.refilled { values in
                values.append(.integer(messageRow))
                values.append(.text(recipient.storedText))
                columns.appendUpdateBindings(snapshot: snapshot, to: &values)
                values.append(columns.pushed.sqlValue)
                values.append(.integer(at.milliseconds))
                values.append(.integer(at.milliseconds))
            })
        return DeliveryKey(db.lastInsertRowID)
    }

    /// Rewrites the snapshot and derived columns — all but `pushed`, fixed when the delivery is routed (its
    /// insert): leaving it out of the SET keeps updates off the `deliveries_inbox` partial index, which SQLite
    /// would otherwise rewrite on every update (an entry at a random place by number). A key with no row
    /// throws a foreign-key violation (the same error an event for that key would raise).
    private static func updateDelivery(
        _ key: DeliveryKey, columns: DeliveryColumns, snapshot: String, at: Timestamp, bindings: inout [SQLValue],
        on db: Connection
    ) throws(StoreError) {
        let sql = """
            UPDATE deliveries
            SET state = ?, status = ?, channel = ?, push_deadline = ?, read_deadline = ?, expires_at = ?,
                final = ?, snapshot = ?, push_withdrawn = ?, updated_at = ?
            WHERE id = ?
            """
        let changed = try db.run(sql, bindings.refilled { values in
            columns.appendUpdateBindings(snapshot: snapshot, to: &values)
            values.append(.integer(at.milliseconds))
            values.append(.integer(key.rawValue))
        })
        guard changed == 1 else {
            throw .constraint(extendedCode: .constraintForeignKey, message: "no delivery with key \(key)", sql: sql)
        }
    }

    /// Values per report row of ``outboxInsertSQL(values:)``.
    static let reportColumns = 4

    /// Queues reports, given as `values` — a `VALUES` list of rows (order, delivery key, when, payload) — in their
    /// order, each only when its delivery's account has a webhook, whose URL and format it takes. Due at once.
    static func outboxInsertSQL(values: String) -> String {
        """
        WITH r(seq, delivery, at, payload) AS (\(values))
        INSERT INTO outbox (delivery_id, url, format, payload, next_attempt_at, created_at)
        SELECT d.id, a.webhook_url, a.webhook_format, r.payload, r.at, r.at
        FROM r JOIN deliveries d ON d.id = r.delivery JOIN messages m ON m.id = d.message_id
        JOIN accounts a ON a.id = m.account_id
        WHERE a.webhook_url IS NOT NULL
        ORDER BY r.seq
        """
    }

    /// A registration to mark `Invalid` — only while the install still has the token the push went to: one that
    /// sent a new token since (the app's PUT) is not declared dead by an answer about the old one.
    struct Invalidation: Sendable {
        let device: DeviceID
        let token: PushToken
        let at: Timestamp
    }

    /// A final status report to queue with its delivery: the outcome's JSON (``StatusReportOutcome/storedText``)
    /// is written only when some account has a webhook.
    struct Report: Sendable {
        let key: DeliveryKey
        let outcome: StatusReportOutcome
    }

    /// Appends the report of `effects`, if it has one.
    static func appendReport(_ effects: PersistedEffects, of key: DeliveryKey, delivery: Delivery, at: Timestamp,
                             to reports: inout [Report]) {
        guard let status = effects.report else { return }
        reports.append(Report(key: key, outcome: StatusReportOutcome(status: status, at: at, delivery: delivery)))
    }

    /// `reports` as rows of ``outboxInsertSQL(values:)``, numbered in order.
    static func reportValues(_ reports: [Report]) -> [SQLValue] {
        var values: [SQLValue] = []
        values.reserveCapacity(reports.count * reportColumns)
        for (order, report) in reports.enumerated() {
            values.append(.integer(Int64(order)))
            values.append(.integer(report.key.rawValue))
            values.append(.integer(report.outcome.at.milliseconds))
            values.append(.text(report.outcome.storedText))
        }
        return values
    }

    /// Appends the installs `effects` invalidates, each with the token `delivery`'s push went to.
    static func appendInvalidations(_ effects: PersistedEffects, delivery: Delivery, at: Timestamp,
                                    to invalidations: inout [Invalidation]) {
        for device in effects.invalidations {
            guard let token = delivery.plan?.targets.first(where: { $0.deviceID == device })?.token else { continue }
            invalidations.append(Invalidation(device: device, token: token, at: at))
        }
    }

    private static func invalidate(_ invalidation: Invalidation, on db: Connection) throws(StoreError) {
        try db.run("""
            UPDATE registrations SET status = 'Invalid', updated_at = ?
            WHERE device_id = ? AND push_token = ? AND status <> 'Invalid'
            """, [.integer(invalidation.at.milliseconds), .text(invalidation.device.text), .text(invalidation.token.text)])
    }
}


extension DeliveryColumns {
    /// Appends state, status, channel, push_deadline, read_deadline, expires_at, final, snapshot, push_withdrawn
    /// — in that order (an insert adds `pushed`; an update never changes it).
    func appendUpdateBindings(snapshot: String, to values: inout [SQLValue]) {
        values.append(.text(state))
        values.append(.text(status))
        values.append(channel.sqlValue)
        values.append(pushDeadline.sqlValue)
        values.append(readDeadline.sqlValue)
        values.append(expiresAt.sqlValue)
        values.append(final.sqlValue)
        values.append(.text(snapshot))
        values.append(pushWithdrawn.sqlValue)
    }
}

extension [SQLValue] {
    /// Empties the array (keeping its capacity), lets `fill` append, and returns it: one buffer of bindings
    /// reused for every row of a job instead of an array (and its concatenations) per row.
    mutating func refilled(_ fill: (inout [SQLValue]) -> Void) -> [SQLValue] {
        removeAll(keepingCapacity: true)
        fill(&self)
        return self
    }
}

extension SQLiteDeliveryStore {
    /// A presentation as the `messages.presentation` column holds it (``PresentationColumn``).
    static func presentationText(_ presentation: SharedPresentation) throws(StoreError) -> String? {
        do {
            return try PresentationColumn.text(presentation)
        } catch {
            throw .encoding(column: "messages.presentation", message: error.message)
        }
    }

    /// The presentation a `messages.presentation` value holds.
    static func presentation(from text: String?) throws(StoreError) -> PushPresentation {
        do {
            return try PresentationColumn.presentation(from: text)
        } catch {
            throw .decoding(column: "messages.presentation", message: error.message)
        }
    }
}
