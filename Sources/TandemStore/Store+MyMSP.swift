import TandemCore

/// The myMSP adapter's tables (migrations 25 and 26). Recipients are registrations of the user's app with
/// origin `mymsp`; every change to one invalidates the registration cache once committed.
extension Store: MyMSPDirectory {
    public func mymspUser(name: String) throws(StoreError) -> MyMSPUser? {
        try read { (db: Connection) throws(StoreError) -> MyMSPUser? in
            guard let row = try db.queryFirst("""
                SELECT u.id, u.name, p.app_key, u.password_salt, u.password_hash, u.event_url
                FROM mymsp_users u JOIN apps p ON p.id = u.app_id WHERE u.name = ?
                """, [.text(name)]) else { return nil }
            return try Self.user(row)
        }
    }

    /// The user bound to `app`, if any (for `tandem app show`, the groups commands and the admin API).
    public func mymspUser(app: AppKey) throws(StoreError) -> MyMSPUser? {
        try read { (db: Connection) throws(StoreError) -> MyMSPUser? in
            guard let row = try db.queryFirst("""
                SELECT u.id, u.name, p.app_key, u.password_salt, u.password_hash, u.event_url
                FROM mymsp_users u JOIN apps p ON p.id = u.app_id WHERE p.app_key = ?
                """, [.text(app.text)]) else { return nil }
            return try Self.user(row)
        }
    }

    private static func user(_ row: Row) throws(StoreError) -> MyMSPUser {
        let keyText = try row.get("app_key", as: String.self)
        guard let key = AppKey(keyText) else { throw .decoding(column: "apps.app_key", message: "malformed: \(keyText)") }
        return MyMSPUser(id: try row.get("id", as: Int64.self), name: try row.get("name", as: String.self), app: key,
                         passwordSalt: try row.get("password_salt", as: String.self),
                         passwordHash: try row.get("password_hash", as: String.self),
                         eventURL: try row.get("event_url", as: String?.self))
    }

    /// False when no app has this key. A name already bound to another app fails with a UNIQUE constraint.
    public func setMyMSPUser(app: AppKey, name: String, passwordSalt: String, passwordHash: String, eventURL: String?,
                             at now: Timestamp) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(app.text)], as: Int64.self) else {
                return false
            }
            _ = try db.run("""
                INSERT INTO mymsp_users (app_id, name, password_salt, password_hash, event_url, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_id) DO UPDATE SET name = excluded.name, password_salt = excluded.password_salt,
                    password_hash = excluded.password_hash, event_url = excluded.event_url, updated_at = excluded.updated_at
                """, [.integer(appID), .text(name), .text(passwordSalt), .text(passwordHash),
                      eventURL.map(SQLValue.text) ?? .null, .integer(now.milliseconds), .integer(now.milliseconds)])
            return true
        }
    }

    public func mymspRecipient(user: Int64, id: Int64) throws(StoreError) -> MyMSPRecipient? {
        try read { (db: Connection) throws(StoreError) -> MyMSPRecipient? in
            try Self.recipient(user: user, id: id, on: db)
        }
    }

    private static let recipientColumns = "m.recipient_id, m.spid, m.active, r.device_id, r.id AS registration"

    private static func recipient(user: Int64, id: Int64, on db: Connection) throws(StoreError) -> MyMSPRecipient? {
        try db.queryFirst("""
            SELECT \(recipientColumns) FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
            WHERE m.user_id = ? AND m.recipient_id = ?
            """, [.integer(user), .integer(id)]).map(recipient)
    }

    private static func recipient(_ row: Row) throws(StoreError) -> MyMSPRecipient {
        let deviceText = try row.get("device_id", as: String.self)
        let spidText = try row.get("spid", as: String.self)
        guard let device = DeviceID(deviceText), let provider = MyMSPServiceProvider(rawValue: spidText) else {
            throw .decoding(column: "mymsp_recipients", message: "recipient with device \(deviceText), spid \(spidText)")
        }
        return MyMSPRecipient(id: try row.get("recipient_id", as: Int64.self), device: device, provider: provider,
                              active: try row.get("active", as: Bool.self))
    }

    public func mymspSubscribe(user: MyMSPUser, recipient: Int64?, provider: MyMSPServiceProvider, key: PushToken,
                               subject: String, destination: String, at now: Timestamp) async throws(StoreError) -> MyMSPRecipientChange {
        let (change, device) = try await write { (db: Connection) throws(StoreError) -> (MyMSPRecipientChange, DeviceID?) in
            if let recipient {
                guard try Self.recipient(user: user.id, id: recipient, on: db) != nil else { return (.unknownRecipient, nil) }
                try Self.insertEvent(user: user.id, action: .subscribe, recipient: recipient, destination: destination,
                                     subject: subject, at: now, on: db)
                return (.done(recipient: recipient, reactivated: false), nil)
            }
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(user.app.text)], as: Int64.self) else {
                throw .decoding(column: "mymsp_users.app_id", message: "user \(user.name) without its app")
            }
            if let holder = try db.queryFirst("""
                SELECT r.id, r.device_id, m.recipient_id, m.user_id, m.active FROM registrations r
                LEFT JOIN mymsp_recipients m ON m.registration_id = r.id WHERE r.app_id = ? AND r.push_token = ?
                """, [.integer(appID), .text(key.text)]) {
                // The same install subscribing again without its id (it lost it): its recipient, reactivated.
                guard try holder.get("user_id", as: Int64?.self) == user.id,
                      let id = try holder.get("recipient_id", as: Int64?.self) else { return (.keyTaken, nil) }
                let wasActive = try holder.get("active", as: Bool.self)
                try Self.rekey(registration: try holder.get("id", as: Int64.self), recipient: id, provider: provider, key: key,
                               at: now, on: db)
                try Self.insertEvent(user: user.id, action: .subscribe, recipient: id, destination: destination,
                                     subject: subject, at: now, on: db)
                return (.done(recipient: id, reactivated: !wasActive), DeviceID(try holder.get("device_id", as: String.self)))
            }
            var generator = SystemRandomNumberGenerator()
            let device = DeviceID(GUID.random(using: &generator))
            guard let registration = try db.scalar("""
                INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
                VALUES (?, ?, ?, ?, 'Unverified', 'mymsp', ?, ?) RETURNING id
                """, [.text(device.text), .integer(appID), .text(provider.platform.wireName), .text(key.text),
                      .integer(now.milliseconds), .integer(now.milliseconds)], as: Int64.self),
                  let id = try db.scalar("""
                INSERT INTO mymsp_recipients (user_id, registration_id, spid, active, created_at, updated_at)
                VALUES (?, ?, ?, 1, ?, ?) RETURNING recipient_id
                """, [.integer(user.id), .integer(registration), .text(provider.rawValue), .integer(now.milliseconds),
                      .integer(now.milliseconds)], as: Int64.self) else {
                throw .decoding(column: "mymsp_recipients", message: "insert returned no id")
            }
            try Self.insertEvent(user: user.id, action: .subscribe, recipient: id, destination: destination, subject: subject,
                                 at: now, on: db)
            return (.done(recipient: id, reactivated: false), device)
        }
        if let device { registrations.invalidate([device]) }
        return change
    }

    public func mymspUpdateKey(user: MyMSPUser, recipient: Int64, provider: MyMSPServiceProvider, key: PushToken,
                               at now: Timestamp) async throws(StoreError) -> MyMSPRecipientChange {
        let (change, device) = try await write { (db: Connection) throws(StoreError) -> (MyMSPRecipientChange, DeviceID?) in
            guard let row = try db.queryFirst("""
                SELECT m.active, r.id, r.app_id, r.device_id FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
                WHERE m.user_id = ? AND m.recipient_id = ?
                """, [.integer(user.id), .integer(recipient)]) else { return (.unknownRecipient, nil) }
            let registration = try row.get("id", as: Int64.self)
            if try db.scalar("SELECT id FROM registrations WHERE app_id = ? AND push_token = ? AND id <> ?",
                             [.integer(try row.get("app_id", as: Int64.self)), .text(key.text), .integer(registration)],
                             as: Int64.self) != nil {
                return (.keyTaken, nil)
            }
            try Self.rekey(registration: registration, recipient: recipient, provider: provider, key: key, at: now, on: db)
            return (.done(recipient: recipient, reactivated: !(try row.get("active", as: Bool.self))),
                    DeviceID(try row.get("device_id", as: String.self)))
        }
        if let device { registrations.invalidate([device]) }
        return change
    }

    /// New service and key for a recipient's registration, pushable again, and the recipient active.
    private static func rekey(registration: Int64, recipient: Int64, provider: MyMSPServiceProvider, key: PushToken,
                              at now: Timestamp, on db: Connection) throws(StoreError) {
        _ = try db.run("""
            UPDATE registrations SET platform = ?, push_token = ?, updated_at = ?,
                status = CASE WHEN status = 'Invalid' THEN 'Unverified' ELSE status END
            WHERE id = ?
            """, [.text(provider.platform.wireName), .text(key.text), .integer(now.milliseconds), .integer(registration)])
        _ = try db.run("UPDATE mymsp_recipients SET spid = ?, active = 1, updated_at = ? WHERE recipient_id = ?",
                       [.text(provider.rawValue), .integer(now.milliseconds), .integer(recipient)])
    }

    public func mymspUnsubscribe(user: MyMSPUser, recipient: Int64, deactivate: Bool, subject: String, destination: String,
                                 at now: Timestamp) async throws(StoreError) -> Bool? {
        let (outcome, deactivated) = try await write { (db: Connection) throws(StoreError) -> (Bool?, DeviceID?) in
            guard let found = try Self.recipient(user: user.id, id: recipient, on: db) else { return (nil, nil) }
            guard found.active else { return (false, nil) }
            if deactivate {
                _ = try db.run("UPDATE mymsp_recipients SET active = 0, updated_at = ? WHERE recipient_id = ?",
                               [.integer(now.milliseconds), .integer(recipient)])
            }
            try Self.insertEvent(user: user.id, action: deactivate ? .unsubscribeAll : .unsubscribe, recipient: recipient,
                                 destination: destination, subject: subject, at: now, on: db)
            return (true, deactivate ? found.device : nil)
        }
        if let deactivated { registrations.invalidate([deactivated]) }
        return outcome
    }

    public func mymspReserveNumbers(_ count: Int) async throws(StoreError) -> ClosedRange<Int64> {
        try await write { (db: Connection) throws(StoreError) -> ClosedRange<Int64> in
            let last = try Self.nextNumber(adding: Int64(max(1, count)), on: db)
            return (last - Int64(max(1, count)) + 1)...last
        }
    }

    private static func nextNumber(adding count: Int64 = 1, on db: Connection) throws(StoreError) -> Int64 {
        guard let number = try db.scalar("UPDATE mymsp_sequence SET last = last + ? WHERE id = 1 RETURNING last",
                                          [.integer(count)], as: Int64.self) else {
            throw .decoding(column: "mymsp_sequence", message: "no sequence row")
        }
        return number
    }

    /// One event with the next msgno; the `mymsp_event_push` trigger queues it for the user's event URL.
    private static func insertEvent(user: Int64, action: MyMSPAction, recipient: Int64, destination: String, subject: String,
                                    at now: Timestamp, on db: Connection) throws(StoreError) {
        let msgno = try nextNumber(on: db)
        _ = try db.run("""
            INSERT INTO mymsp_events (msgno, user_id, action, recipient_id, destination, subject, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.integer(msgno), .integer(user), .text(action.rawValue), .integer(recipient), .text(destination),
                  .text(subject), .integer(now.milliseconds)])
    }

    /// Recipients named by id alone are answered from the registration cache when every one is there (each change to
    /// a recipient or its registration invalidates it); otherwise, or with groups, read.
    public func mymspActiveRecipients(user: Int64, ids: [Int64], groups: [String]) throws(StoreError) -> [MyMSPRecipient] {
        guard groups.isEmpty, !ids.isEmpty else { return try readActiveRecipients(user: user, ids: ids, groups: groups) }
        let (cached, generation) = registrations.mymspRecipients(user: user, ids: ids)
        if let cached {
            var seen = Set<Int64>()
            return cached.filter { seen.insert($0.id).inserted }
        }
        let read = try readActiveRecipients(user: user, ids: ids, groups: groups)
        registrations.cacheMyMSPRecipients(user: user, read, readSince: generation)
        return read
    }

    private func readActiveRecipients(user: Int64, ids: [Int64], groups: [String]) throws(StoreError) -> [MyMSPRecipient] {
        try read { (db: Connection) throws(StoreError) -> [MyMSPRecipient] in
            var named = ids
            for group in groups {
                named += try db.query("""
                    SELECT gm.recipient_id FROM mymsp_groups g JOIN mymsp_group_members gm ON gm.group_id = g.id
                    WHERE g.user_id = ? AND (g.name = ? OR g.short_name = ?) ORDER BY gm.recipient_id
                    """, [.integer(user), .text(group), .text(group)]).map { (row) throws(StoreError) -> Int64 in
                    try row.get("recipient_id", as: Int64.self)
                }
            }
            var seen = Set<Int64>()
            named = named.filter { seen.insert($0).inserted }
            guard !named.isEmpty else { return [] }
            var found: [Int64: MyMSPRecipient] = [:]
            for start in stride(from: 0, to: named.count, by: 500) {
                let chunk = named[start..<min(named.count, start + 500)]
                let rows = try db.query("""
                    SELECT \(Self.recipientColumns) FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
                    WHERE m.user_id = ? AND m.active = 1 AND r.push_token IS NOT NULL AND r.status <> 'Invalid'
                      AND m.recipient_id IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))
                    """, [.integer(user)] + chunk.map(SQLValue.integer))
                for row in rows {
                    let recipient = try Self.recipient(row)
                    found[recipient.id] = recipient
                }
            }
            return named.compactMap { found[$0] }
        }
    }

    /// Through the `deliveries_inbox` index (pushed deliveries by recipient): a notification whose push was
    /// refused at routing (no pushable key) is not listed.
    public func mymspNotifications(device: DeviceID, after: Int64, sentAfter: Timestamp?,
                                   limit: Int) throws(StoreError) -> [MyMSPNotification] {
        try read { (db: Connection) throws(StoreError) -> [MyMSPNotification] in
            try db.query("""
                SELECT d.id, d.final, m.created_at, m.body, CAST(json_extract(m.extra, '$.msgno') AS INTEGER) AS msgno
                FROM deliveries d JOIN messages m ON m.id = d.message_id
                WHERE d.msisdn = ? AND d.pushed = 1 AND m.api = 'mymsp' AND msgno > ? AND m.created_at >= ?
                ORDER BY msgno LIMIT ?
                """, [.text(DeliveryRecipient.device(device).storedText), .integer(after),
                      .integer(sentAfter?.milliseconds ?? Int64.min), .integer(Int64(limit))]).map { (row) throws(StoreError) in
                MyMSPNotification(msgno: try row.get("msgno", as: Int64.self),
                                  sentAt: Timestamp(milliseconds: try row.get("created_at", as: Int64.self)),
                                  text: try row.get("body", as: String.self), delivery: DeliveryKey(try row.get("id", as: Int64.self)),
                                  final: try row.get("final", as: Bool.self))
            }
        }
    }

    public func mymspEvents(user: Int64, after: Int64, limit: Int) throws(StoreError) -> [MyMSPEvent] {
        try read { (db: Connection) throws(StoreError) -> [MyMSPEvent] in
            try db.query("""
                SELECT e.msgno, e.created_at, u.name, e.action, e.recipient_id, e.destination, e.subject
                FROM mymsp_events e JOIN mymsp_users u ON u.id = e.user_id
                WHERE e.user_id = ? AND e.msgno > ? ORDER BY e.msgno LIMIT ?
                """, [.integer(user), .integer(after), .integer(Int64(limit))]).map { (row) throws(StoreError) in
                let actionText = try row.get("action", as: String.self)
                guard let action = MyMSPAction(rawValue: actionText) else {
                    throw .decoding(column: "mymsp_events.action", message: actionText)
                }
                return MyMSPEvent(msgno: try row.get("msgno", as: Int64.self),
                                  createdAt: Timestamp(milliseconds: try row.get("created_at", as: Int64.self)),
                                  userName: try row.get("name", as: String.self), action: action,
                                  recipient: try row.get("recipient_id", as: Int64.self),
                                  destination: try row.get("destination", as: String.self),
                                  subject: try row.get("subject", as: String.self))
            }
        }
    }

    /// Creates or replaces the group `name` of the user (its members: the given recipients of that user;
    /// ids of other users' recipients are left out).
    public func setMyMSPGroup(user: Int64, name: String, shortName: String?, recipients: [Int64],
                              at now: Timestamp) async throws(StoreError) {
        try await write { (db: Connection) throws(StoreError) in
            guard let group = try db.scalar("""
                INSERT INTO mymsp_groups (user_id, name, short_name, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, name) DO UPDATE SET short_name = excluded.short_name RETURNING id
                """, [.integer(user), .text(name), shortName.map(SQLValue.text) ?? .null, .integer(now.milliseconds)],
                                          as: Int64.self) else {
                throw .decoding(column: "mymsp_groups", message: "insert returned no id")
            }
            _ = try db.run("DELETE FROM mymsp_group_members WHERE group_id = ?", [.integer(group)])
            for recipient in recipients {
                _ = try db.run("""
                    INSERT OR IGNORE INTO mymsp_group_members (group_id, recipient_id)
                    SELECT ?, recipient_id FROM mymsp_recipients WHERE recipient_id = ? AND user_id = ?
                    """, [.integer(group), .integer(recipient), .integer(user)])
            }
        }
    }

    public func deleteMyMSPGroup(user: Int64, name: String) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            guard let group = try db.scalar("SELECT id FROM mymsp_groups WHERE user_id = ? AND name = ?",
                                            [.integer(user), .text(name)], as: Int64.self) else { return false }
            _ = try db.run("DELETE FROM mymsp_group_members WHERE group_id = ?", [.integer(group)])
            _ = try db.run("DELETE FROM mymsp_groups WHERE id = ?", [.integer(group)])
            return true
        }
    }

    public func mymspGroups(user: Int64) throws(StoreError) -> [MyMSPGroup] {
        try read { (db: Connection) throws(StoreError) -> [MyMSPGroup] in
            try db.query("SELECT id, name, short_name FROM mymsp_groups WHERE user_id = ? ORDER BY name",
                         [.integer(user)]).map { (row) throws(StoreError) -> MyMSPGroup in
                let members = try db.query("SELECT recipient_id FROM mymsp_group_members WHERE group_id = ? ORDER BY recipient_id",
                                           [.integer(try row.get("id", as: Int64.self))]).map { (member) throws(StoreError) in
                    try member.get("recipient_id", as: Int64.self)
                }
                return MyMSPGroup(name: try row.get("name", as: String.self), shortName: try row.get("short_name", as: String?.self),
                                  recipients: members)
            }
        }
    }

    public func purgeMyMSPEvents(before: Timestamp) async throws(StoreError) -> Int {
        try await write { (db: Connection) throws(StoreError) -> Int in
            try db.run("DELETE FROM mymsp_events WHERE created_at < ?", [.integer(before.milliseconds)])
        }
    }

    /// The recipients of the user bound to `app`, for `tandem app show`: id, device, spid, active.
    public func mymspRecipients(app: AppKey) throws(StoreError) -> [MyMSPRecipient] {
        try read { (db: Connection) throws(StoreError) -> [MyMSPRecipient] in
            try db.query("""
                SELECT \(Self.recipientColumns) FROM mymsp_recipients m JOIN registrations r ON r.id = m.registration_id
                JOIN mymsp_users u ON u.id = m.user_id JOIN apps p ON p.id = u.app_id WHERE p.app_key = ?
                ORDER BY m.recipient_id
                """, [.text(app.text)]).map(Self.recipient)
        }
    }
}
