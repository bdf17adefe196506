import TandemCore

/// The statements of a ``SQLiteDeliveryStore`` write job. All run on the writer thread inside the
/// job's savepoint; any throw rolls the whole job back (the writer's `ROLLBACK TO`).
extension SQLiteDeliveryStore {
    static func write(
        inserts: [(NewDeliveryRecord, DeliveryColumns)], changes: [(DeliveryChange, DeliveryColumns)], on db: Connection
    ) throws(StoreError) -> [DeliveryKey] {
        var messageRows: [GUID: Int64] = [:]
        var keys: [DeliveryKey] = []
        keys.reserveCapacity(inserts.count)
        for (record, columns) in inserts {
            let messageRow = try messageRowID(for: record.content, at: record.at, known: &messageRows, on: db)
            let key = try insertDelivery(messageRow: messageRow, msisdn: record.msisdn, columns: columns,
                                         at: record.at, on: db)
            try appendEvent(record.event, to: key, at: record.at, on: db)
            try persist(record.effects, of: key, at: record.at, on: db)
            keys.append(key)
        }
        for (change, columns) in changes {
            try updateDelivery(change.key, columns: columns, at: change.at, on: db)
            try appendEvent(change.event, to: change.key, at: change.at, on: db)
            try persist(change.effects, of: change.key, at: change.at, on: db)
        }
        return keys
    }

    static func appendEvent(_ event: DeliveryEvent, to key: DeliveryKey, at: Timestamp, on db: Connection) throws(StoreError) {
        try db.run("INSERT INTO delivery_events (delivery_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                   [.integer(key.rawValue), .integer(at.milliseconds), .text(event.logKind), .text(event.logDetail)])
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
            try db.run("INSERT INTO messages (message_id, sender, body, reference, created_at) VALUES (?, ?, ?, ?, ?)",
                       [.text(content.messageID.text), .text(content.sender), .text(content.body),
                        content.reference.sqlValue, .integer(at.milliseconds)])
            id = db.lastInsertRowID
        }
        known[content.messageID] = id
        return id
    }

    private static func insertDelivery(
        messageRow: Int64, msisdn: MSISDN, columns: DeliveryColumns, at: Timestamp, on db: Connection
    ) throws(StoreError) -> DeliveryKey {
        try db.run("""
            INSERT INTO deliveries (message_id, msisdn, state, status, channel, push_deadline, read_deadline,
                                    expires_at, final, snapshot, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(messageRow), .text(msisdn.e164)] + columns.bindings
                + [.integer(at.milliseconds), .integer(at.milliseconds)])
        return DeliveryKey(db.lastInsertRowID)
    }

    /// Rewrites the snapshot and derived columns. A key with no row throws a foreign-key violation
    /// (the same error an event for that key would raise).
    private static func updateDelivery(
        _ key: DeliveryKey, columns: DeliveryColumns, at: Timestamp, on db: Connection
    ) throws(StoreError) {
        let sql = """
            UPDATE deliveries
            SET state = ?, status = ?, channel = ?, push_deadline = ?, read_deadline = ?, expires_at = ?,
                final = ?, snapshot = ?, updated_at = ?
            WHERE id = ?
            """
        let changed = try db.run(sql, columns.bindings + [.integer(at.milliseconds), .integer(key.rawValue)])
        guard changed == 1 else {
            throw .constraint(extendedCode: .constraintForeignKey, message: "no delivery with key \(key)", sql: sql)
        }
    }

    private static func persist(_ effects: PersistedEffects, of key: DeliveryKey, at: Timestamp, on db: Connection) throws(StoreError) {
        for status in effects.reports {
            let inserted = try db.run(StatusReportPayload.outboxInsertSQL,
                                      [.integer(key.rawValue), .text(status.wireName), .integer(at.milliseconds)])
            guard inserted == 1 else {
                throw .constraint(extendedCode: .constraintForeignKey, message: "no delivery with key \(key)",
                                  sql: StatusReportPayload.outboxInsertSQL)
            }
        }
        for device in effects.invalidations {
            try db.run("UPDATE registrations SET status = 'Invalid', updated_at = ? WHERE device_id = ? AND status <> 'Invalid'",
                       [.integer(at.milliseconds), .text(device.text)])
        }
    }
}

extension DeliveryColumns {
    /// state, status, channel, push_deadline, read_deadline, expires_at, final, snapshot — in that order.
    var bindings: [SQLValue] {
        [.text(state), .text(status), channel.sqlValue, pushDeadline.sqlValue, readDeadline.sqlValue,
         expiresAt.sqlValue, final.sqlValue, .text(snapshot)]
    }
}
