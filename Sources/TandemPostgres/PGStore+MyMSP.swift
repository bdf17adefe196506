import TandemCore

/// The myMSP adapter's tables on PostgreSQL, with SQLite's contract (`Store+MyMSP.swift`). Recipients are
/// registrations of the user's app with origin `mymsp`.
///
/// msgnos come from the counter row `mymsp_sequence` (`UPDATE … RETURNING`), as on SQLite: the row is also what the
/// dead-key trigger numbers its events with, and it is locked until the transaction that moved it commits, so numbers
/// are handed out in commit order and never twice. An event takes its number in the statement that inserts it (a
/// data-modifying `WITH`), so a job needs no answer from an earlier statement.
///
/// No registration cache: every read asks the server.
extension PGStore: MyMSPDirectory {
    public func mymspUser(name: String) async throws(PGError) -> MyMSPUser? {
        try await mymspUser(where: "u.name = $1", name)
    }

    public func mymspUser(app: AppKey) async throws(PGError) -> MyMSPUser? {
        try await mymspUser(where: "p.app_key = $1", app.text)
    }

    /// The user matching `condition` (SQL over `mymsp_users u` and `apps p`, `$1` = `value`).
    private func mymspUser(where condition: String, _ value: String) async throws(PGError) -> MyMSPUser? {
        let row = try await read { db throws(PGError) in
            try db.execute("""
                SELECT u.id, u.name, p.app_key, u.password_salt, u.password_hash, u.event_url
                FROM mymsp_users u JOIN apps p ON p.id = u.app_id WHERE \(condition)
                """, [value]).rows.first
        }
        return try row.map(Self.mymspUser)
    }

    /// False when no app has this key. A name already bound to another app fails with SQLSTATE 23505.
    public func setMyMSPUser(app: AppKey, name: String, passwordSalt: String, passwordHash: String, eventURL: String?,
                             at now: Timestamp) async throws(PGError) -> Bool {
        let results = try await write([PGStatement("""
            INSERT INTO mymsp_users (app_id, name, password_salt, password_hash, event_url, created_at, updated_at)
            SELECT id, $2, $3, $4, $5, $6, $6 FROM apps WHERE app_key = $1
            ON CONFLICT (app_id) DO UPDATE SET name = excluded.name, password_salt = excluded.password_salt,
                password_hash = excluded.password_hash, event_url = excluded.event_url, updated_at = excluded.updated_at
            """, [app.text, name, passwordSalt, passwordHash, eventURL, String(now.milliseconds)])])
        return results.first?.changedRows == 1
    }

    public func mymspRecipient(user: Int64, id: Int64) async throws(PGError) -> MyMSPRecipient? {
        let row = try await read { db throws(PGError) in
            try db.execute("""
                SELECT \(Self.recipientColumns) FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
                WHERE m.user_id = $1 AND m.recipient_id = $2
                """, [String(user), String(id)]).rows.first
        }
        return try row.map(Self.mymspRecipient)
    }

    /// One job. With `recipient`: an event when the user has it. Without: the first statement reads who holds `key` in
    /// the user's app; the user's own recipient holding it is re-keyed and reactivated, with no holder a registration
    /// and a recipient are inserted; then the event goes to the user's recipient holding `key`, if any (none: the key
    /// is another registration's). Each statement repeats its condition in SQL and sees the ones before it.
    public func mymspSubscribe(user: MyMSPUser, recipient: Int64?, provider: MyMSPServiceProvider, key: PushToken,
                               subject: String, destination: String, at now: Timestamp) async throws(PGError) -> MyMSPRecipientChange {
        let at = String(now.milliseconds)
        if let recipient {
            let results = try await write([Self.insertEvent(
                user: user.id, action: .subscribe, destination: destination, subject: subject, at: now,
                target: "SELECT recipient_id FROM mymsp_recipients WHERE user_id = $1 AND recipient_id = $6",
                [String(recipient)])])
            return results.first?.rows.isEmpty == false ? .done(recipient: recipient, reactivated: false) : .unknownRecipient
        }
        // $1 user, $2 app key, $3 key, $4 platform or spid, $5 now.
        let holding = """
            FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
            WHERE m.user_id = $1 AND r.push_token = $3 AND r.app_id = (SELECT id FROM apps WHERE app_key = $2)
            """
        let holder: [String?] = [String(user.id), user.app.text, key.text]
        var generator = SystemRandomNumberGenerator()
        let created = DeviceID(GUID.random(using: &generator))
        let results = try await write([
            .appMustExist(user.app, else: "mymsp_users.app_id: user \(user.name) without its app"),
            PGStatement("""
                SELECT m.user_id, m.active FROM registrations r LEFT JOIN mymsp_recipients m ON m.registration_id = r.id
                WHERE r.app_id = (SELECT id FROM apps WHERE app_key = $1) AND r.push_token = $2
                """, [user.app.text, key.text]),
            PGStatement("""
                UPDATE registrations SET platform = $4, updated_at = $5,
                    status = CASE WHEN status = 'Invalid' THEN 'Unverified' ELSE status END
                WHERE id = (SELECT r.id \(holding))
                """, holder + [provider.platform.wireName, at]),
            PGStatement("UPDATE mymsp_recipients SET spid = $4, active = true, updated_at = $5 WHERE recipient_id = (SELECT m.recipient_id \(holding))",
                        holder + [provider.rawValue, at]),
            PGStatement("""
                WITH registration AS (
                    INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
                    SELECT $7, p.id, $4, $3, 'Unverified', 'mymsp', $6, $6 FROM apps p
                    WHERE p.app_key = $2 AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.app_id = p.id AND r.push_token = $3)
                    RETURNING id)
                INSERT INTO mymsp_recipients (user_id, registration_id, spid, active, created_at, updated_at)
                SELECT $1, id, $5, true, $6, $6 FROM registration
                """, [String(user.id), user.app.text, key.text, provider.platform.wireName, provider.rawValue, at, created.text]),
            Self.insertEvent(user: user.id, action: .subscribe, destination: destination, subject: subject, at: now,
                             target: "SELECT m.recipient_id FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id "
                                 + "WHERE m.user_id = $1 AND r.push_token = $6 AND r.app_id = (SELECT id FROM apps WHERE app_key = $7)",
                             [key.text, user.app.text]),
        ])
        guard let id = results.last?.scalar.flatMap({ Int64($0) }) else { return .keyTaken }
        // Reactivated: the user's recipient held the key and was inactive.
        let previous = results[1].rows.first
        return .done(recipient: id, reactivated: previous?[0] == String(user.id) && previous?[1] == "f")
    }

    /// One job: the first statement reads the recipient and whether another registration of its app holds `key`; the
    /// re-keying statements repeat both conditions.
    public func mymspUpdateKey(user: MyMSPUser, recipient: Int64, provider: MyMSPServiceProvider, key: PushToken,
                               at now: Timestamp) async throws(PGError) -> MyMSPRecipientChange {
        // $1 user, $2 recipient, $3 key, $4 spid or platform, $5 now.
        let target: [String?] = [String(user.id), String(recipient), key.text]
        let free = """
            m.user_id = $1 AND m.recipient_id = $2 AND NOT EXISTS (
                SELECT 1 FROM registrations o WHERE o.app_id = r.app_id AND o.push_token = $3 AND o.id <> r.id)
            """
        let results = try await write([
            PGStatement("""
                SELECT m.active, EXISTS (SELECT 1 FROM registrations o WHERE o.app_id = r.app_id AND o.push_token = $3 AND o.id <> r.id)
                FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
                WHERE m.user_id = $1 AND m.recipient_id = $2
                """, [String(user.id), String(recipient), key.text]),
            // The recipient first (the registration's key is what the condition looks at).
            PGStatement("""
                UPDATE mymsp_recipients m SET spid = $4, active = true, updated_at = $5 FROM registrations r
                WHERE r.id = m.registration_id AND \(free)
                """, target + [provider.rawValue, String(now.milliseconds)]),
            PGStatement("""
                UPDATE registrations r SET platform = $4, push_token = $3, updated_at = $5,
                    status = CASE WHEN r.status = 'Invalid' THEN 'Unverified' ELSE r.status END
                FROM mymsp_recipients m WHERE m.registration_id = r.id AND \(free)
                """, target + [provider.platform.wireName, String(now.milliseconds)]),
        ])
        guard let row = results.first?.rows.first else { return .unknownRecipient }
        if row[1] == "t" { return .keyTaken }
        return .done(recipient: recipient, reactivated: row[0] == "f")
    }

    /// `unsubscribe` / `unsubscribeall`: the first statement reads the recipient; the event (and with `deactivate` the
    /// deactivation) happen only while it is active.
    public func mymspUnsubscribe(user: MyMSPUser, recipient: Int64, deactivate: Bool, subject: String, destination: String,
                                 at now: Timestamp) async throws(PGError) -> Bool? {
        var statements = [
            PGStatement("""
                SELECT m.active FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
                WHERE m.user_id = $1 AND m.recipient_id = $2
                """, [String(user.id), String(recipient)]),
            Self.insertEvent(user: user.id, action: deactivate ? .unsubscribeAll : .unsubscribe, destination: destination,
                             subject: subject, at: now,
                             target: "SELECT recipient_id FROM mymsp_recipients WHERE user_id = $1 AND recipient_id = $6 AND active",
                             [String(recipient)]),
        ]
        if deactivate {
            statements.append(PGStatement("""
                UPDATE mymsp_recipients SET active = false, updated_at = $3 WHERE user_id = $1 AND recipient_id = $2 AND active
                """, [String(user.id), String(recipient), String(now.milliseconds)]))
        }
        let results = try await write(statements)
        guard let row = results.first?.rows.first else { return nil }
        return row[0] == "t"
    }

    /// The next `count` msgnos (at least one), from the counter row.
    public func mymspReserveNumbers(_ count: Int) async throws(PGError) -> ClosedRange<Int64> {
        let count = Int64(max(1, count))
        let results = try await write([PGStatement("UPDATE mymsp_sequence SET last = last + $1 WHERE id = 1 RETURNING last",
                                                   [String(count)])])
        guard let last = results.first?.scalar.flatMap({ Int64($0) }) else {
            throw .client("mymsp_sequence: no sequence row")
        }
        return (last - count + 1)...last
    }

    /// The user's active, pushable recipients among `ids` and the groups' members, in first-named order, once each.
    public func mymspActiveRecipients(user: Int64, ids: [Int64], groups: [String]) async throws(PGError) -> [MyMSPRecipient] {
        let rows = try await read { db throws(PGError) in
            var named = ids
            if !groups.isEmpty {
                // Each group's members in recipient order, the groups in the order named.
                named += try db.execute("""
                    SELECT gm.recipient_id FROM unnest($2::text[]) WITH ORDINALITY AS n(name, seq)
                    JOIN mymsp_groups g ON g.user_id = $1 AND (g.name = n.name OR g.short_name = n.name)
                    JOIN mymsp_group_members gm ON gm.group_id = g.id
                    ORDER BY n.seq, gm.recipient_id
                    """, [String(user), PGArray.literal(groups)]).rows.compactMap { $0[0].flatMap { Int64($0) } }
            }
            var seen = Set<Int64>()
            named = named.filter { seen.insert($0).inserted }
            guard !named.isEmpty else { return ([Int64](), [[String?]]()) }
            let rows = try db.execute("""
                SELECT \(Self.recipientColumns) FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
                WHERE m.user_id = $1 AND m.active AND r.push_token IS NOT NULL AND r.status <> 'Invalid'
                  AND m.recipient_id = ANY($2::bigint[])
                """, [String(user), PGArray.literal(named.map { String($0) })]).rows
            return (named, rows)
        }
        var found: [Int64: MyMSPRecipient] = [:]
        for row in rows.1 {
            let recipient = try Self.mymspRecipient(row)
            found[recipient.id] = recipient
        }
        return rows.0.compactMap { found[$0] }
    }

    /// Notifications pushed to `device` (a notification whose push was refused at routing is not listed).
    public func mymspNotifications(device: DeviceID, after: Int64, sentAfter: Timestamp?,
                                   limit: Int) async throws(PGError) -> [MyMSPNotification] {
        let rows = try await read { db throws(PGError) in
            try db.execute("""
                SELECT id, final, created_at, body, msgno FROM (
                    SELECT d.id, d.final, m.created_at, m.body,
                           CASE WHEN m.api = 'mymsp' AND json_typeof(m.extra -> 'msgno') = 'number'
                                THEN (m.extra ->> 'msgno')::numeric::bigint END AS msgno
                    FROM deliveries d JOIN messages m ON m.id = d.message_id
                    WHERE d.msisdn = $1 AND d.pushed AND m.api = 'mymsp' AND m.created_at >= $3) listed
                WHERE msgno > $2 ORDER BY msgno LIMIT $4
                """, [DeliveryRecipient.device(device).storedText, String(after),
                      String(sentAfter?.milliseconds ?? Int64.min), String(max(0, limit))]).rows
        }
        return rows.map { row in
            MyMSPNotification(msgno: Int64(row[4] ?? "") ?? 0, sentAt: Timestamp(milliseconds: Int64(row[2] ?? "") ?? 0),
                              text: row[3] ?? "", delivery: DeliveryKey(Int64(row[0] ?? "") ?? 0), final: row[1] == "t")
        }
    }

    public func mymspEvents(user: Int64, after: Int64, limit: Int) async throws(PGError) -> [MyMSPEvent] {
        let rows = try await read { db throws(PGError) in
            try db.execute("""
                SELECT e.msgno, e.created_at, u.name, e.action, e.recipient_id, e.destination, e.subject
                FROM mymsp_events e JOIN mymsp_users u ON u.id = e.user_id
                WHERE e.user_id = $1 AND e.msgno > $2 ORDER BY e.msgno LIMIT $3
                """, [String(user), String(after), String(max(0, limit))]).rows
        }
        return try rows.map { (row) throws(PGError) -> MyMSPEvent in
            guard let action = MyMSPAction(rawValue: row[3] ?? "") else {
                throw .client("mymsp_events.action: \(row[3] ?? "NULL")")
            }
            return MyMSPEvent(msgno: Int64(row[0] ?? "") ?? 0, createdAt: Timestamp(milliseconds: Int64(row[1] ?? "") ?? 0),
                              userName: row[2] ?? "", action: action, recipient: Int64(row[4] ?? "") ?? 0,
                              destination: row[5] ?? "", subject: row[6] ?? "")
        }
    }

    /// Creates or replaces the group `name` of the user: its members are the given recipients of that user (ids of
    /// other users' recipients are left out). A short name another group of the user has fails with SQLSTATE 23505.
    public func setMyMSPGroup(user: Int64, name: String, shortName: String?, recipients: [Int64],
                              at now: Timestamp) async throws(PGError) {
        let group = "(SELECT id FROM mymsp_groups WHERE user_id = $1 AND name = $2)"
        _ = try await write([
            PGStatement("""
                INSERT INTO mymsp_groups (user_id, name, short_name, created_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (user_id, name) DO UPDATE SET short_name = excluded.short_name
                """, [String(user), name, shortName, String(now.milliseconds)]),
            PGStatement("DELETE FROM mymsp_group_members WHERE group_id = \(group)", [String(user), name]),
            PGStatement("""
                INSERT INTO mymsp_group_members (group_id, recipient_id)
                SELECT \(group), m.recipient_id FROM mymsp_recipients m
                WHERE m.user_id = $1 AND m.recipient_id = ANY($3::bigint[])
                ON CONFLICT DO NOTHING
                """, [String(user), name, PGArray.literal(recipients.map { String($0) })]),
        ])
    }

    public func deleteMyMSPGroup(user: Int64, name: String) async throws(PGError) -> Bool {
        let results = try await write([
            PGStatement("DELETE FROM mymsp_group_members WHERE group_id = (SELECT id FROM mymsp_groups WHERE user_id = $1 AND name = $2)",
                        [String(user), name]),
            PGStatement("DELETE FROM mymsp_groups WHERE user_id = $1 AND name = $2", [String(user), name]),
        ])
        return results.last?.changedRows == 1
    }

    /// The user's groups by name, each with its members in recipient order.
    public func mymspGroups(user: Int64) async throws(PGError) -> [MyMSPGroup] {
        let rows = try await read { db throws(PGError) in
            try db.execute("""
                SELECT g.name, g.short_name, gm.recipient_id FROM mymsp_groups g
                LEFT JOIN mymsp_group_members gm ON gm.group_id = g.id
                WHERE g.user_id = $1 ORDER BY g.name, gm.recipient_id
                """, [String(user)]).rows
        }
        var groups: [MyMSPGroup] = []
        var current: (name: String, shortName: String?, members: [Int64])?
        for row in rows {
            let name = row[0] ?? ""
            if current?.name != name {
                if let current { groups.append(MyMSPGroup(name: current.name, shortName: current.shortName, recipients: current.members)) }
                current = (name, row[1], [])
            }
            if let member = row[2].flatMap({ Int64($0) }) { current?.members.append(member) }
        }
        if let current { groups.append(MyMSPGroup(name: current.name, shortName: current.shortName, recipients: current.members)) }
        return groups
    }

    /// Deletes events created before `before`; how many.
    public func purgeMyMSPEvents(before: Timestamp) async throws(PGError) -> Int {
        let results = try await write([PGStatement("DELETE FROM mymsp_events WHERE created_at < $1", [String(before.milliseconds)])])
        return results.first?.changedRows ?? 0
    }

    /// The recipients of the user bound to `app`, for `tandem app show`: id, device, spid, active.
    public func mymspRecipients(app: AppKey) async throws(PGError) -> [MyMSPRecipient] {
        let rows = try await read { db throws(PGError) in
            try db.execute("""
                SELECT \(Self.recipientColumns) FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
                JOIN mymsp_users u ON u.id = m.user_id JOIN apps p ON p.id = u.app_id WHERE p.app_key = $1
                ORDER BY m.recipient_id
                """, [app.text]).rows
        }
        return try rows.map(Self.mymspRecipient)
    }

    // MARK: Statements and rows

    /// One event for the recipient `target` selects (`$1` is the user; `targetParameters` are `$6…`), numbered from the
    /// counter row in the same statement: nothing is inserted, and no number is taken, when `target` selects nothing.
    /// Answers the recipient's id (no row: no event). The `mymsp_event_push` trigger queues it for the user's event URL.
    private static func insertEvent(user: Int64, action: MyMSPAction, destination: String, subject: String, at now: Timestamp,
                                    target: String, _ targetParameters: [String?]) -> PGStatement {
        PGStatement("""
            WITH target AS (\(target) LIMIT 1),
                 number AS (UPDATE mymsp_sequence SET last = last + 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM target) RETURNING last)
            INSERT INTO mymsp_events (msgno, user_id, action, recipient_id, destination, subject, created_at)
            SELECT number.last, $1, $2, target.recipient_id, $3, $4, $5 FROM number, target
            RETURNING recipient_id
            """, [String(user), action.rawValue, destination, subject, String(now.milliseconds)] + targetParameters)
    }

    private static let recipientColumns = "m.recipient_id, m.spid, m.active, r.device_id"

    private static func mymspRecipient(_ row: [String?]) throws(PGError) -> MyMSPRecipient {
        let deviceText = row[3] ?? "", spidText = row[1] ?? ""
        guard let device = DeviceID(deviceText), let provider = MyMSPServiceProvider(rawValue: spidText),
              let id = row[0].flatMap({ Int64($0) }) else {
            throw .client("mymsp_recipients: recipient with device \(deviceText), spid \(spidText)")
        }
        return MyMSPRecipient(id: id, device: device, provider: provider, active: row[2] == "t")
    }

    private static func mymspUser(_ row: [String?]) throws(PGError) -> MyMSPUser {
        guard let key = row[2].flatMap(AppKey.init) else { throw .client("apps.app_key: malformed: \(row[2] ?? "NULL")") }
        return MyMSPUser(id: Int64(row[0] ?? "") ?? 0, name: row[1] ?? "", app: key, passwordSalt: row[3] ?? "",
                         passwordHash: row[4] ?? "", eventURL: row[5])
    }
}
