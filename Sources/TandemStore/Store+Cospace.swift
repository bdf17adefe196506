import TandemCore

/// cospace's users and their push tokens (``CospaceRegistry``): `app_users`, and registrations with origin
/// `cospace` owned by a user (`registrations.owner_user`).
///
/// A cospace token is a registration like any other: unverified (it has no number), notifications on,
/// with its own APNs environment and topic. Writes that change registrations drop the changed ones from the
/// registration cache once committed, as the device API's writes do.
extension Store: CospaceRegistry {
    public func addUser(app: AppKey, user: AppUserID, tokenHash: String, at now: Timestamp) async throws(StoreError) -> AppUserAddition {
        try await write { (db: Connection) throws(StoreError) -> AppUserAddition in
            guard let appID = try Self.appID(app, on: db) else { return .unknownApp }
            if let row = try db.queryFirst("SELECT id, revoked_at FROM app_users WHERE app_id = ? AND user_id = ?",
                                           [.integer(appID), .text(user.text)]) {
                guard try row.get("revoked_at", as: Int64?.self) != nil else { return .exists }
                try db.run("UPDATE app_users SET token_hash = ?, revoked_at = NULL, created_at = ? WHERE id = ?",
                           [.text(tokenHash), .integer(now.milliseconds), .integer(try row.get("id", as: Int64.self))])
                return .added
            }
            try db.run("INSERT INTO app_users (app_id, user_id, token_hash, created_at) VALUES (?, ?, ?, ?)",
                       [.integer(appID), .text(user.text), .text(tokenHash), .integer(now.milliseconds)])
            return .added
        }
    }

    public func users(app: AppKey) throws(StoreError) -> [AppUser]? {
        try read { (db: Connection) throws(StoreError) -> [AppUser]? in
            guard let appID = try Self.appID(app, on: db) else { return nil }
            return try db.query("SELECT user_id, created_at, revoked_at FROM app_users WHERE app_id = ? ORDER BY id",
                                [.integer(appID)]).map { (row) throws(StoreError) -> AppUser in
                try Self.user(row, app: app)
            }
        }
    }

    public func isActiveUser(app: AppKey, user: AppUserID) throws(StoreError) -> Bool {
        try read { (db: Connection) throws(StoreError) -> Bool in
            try db.scalar("""
                SELECT count(*) FROM app_users u JOIN apps p ON p.id = u.app_id
                WHERE p.app_key = ? AND u.user_id = ? AND u.revoked_at IS NULL
                """, [.text(app.text), .text(user.text)], as: Int.self) == 1
        }
    }

    public func revokeUser(app: AppKey, user: AppUserID, at now: Timestamp) async throws(StoreError) -> AppUserRevocation {
        let outcome = try await write { (db: Connection) throws(StoreError) -> (AppUserRevocation, [DeviceID]) in
            guard let appID = try Self.appID(app, on: db) else { return (.unknownApp, []) }
            guard let userRow = try db.scalar("SELECT id FROM app_users WHERE app_id = ? AND user_id = ? AND revoked_at IS NULL",
                                              [.integer(appID), .text(user.text)], as: Int64.self) else {
                return (.unknownUser, [])
            }
            let devices = try Self.devices(try db.query("SELECT device_id FROM registrations WHERE owner_user = ?", [.integer(userRow)]))
            try db.run("DELETE FROM registrations WHERE owner_user = ?", [.integer(userRow)])
            try db.run("UPDATE app_users SET revoked_at = ? WHERE id = ?", [.integer(now.milliseconds), .integer(userRow)])
            return (.revoked, devices)
        }
        registrations.invalidate(outcome.1)
        return outcome.0
    }

    public func user(tokenHash: String) throws(StoreError) -> (user: AppUser, storedHash: String)? {
        try read { (db: Connection) throws(StoreError) -> (user: AppUser, storedHash: String)? in
            guard let row = try db.queryFirst("""
                SELECT u.user_id, u.created_at, u.revoked_at, u.token_hash, p.app_key
                FROM app_users u JOIN apps p ON p.id = u.app_id WHERE u.token_hash = ?
                """, [.text(tokenHash)]) else { return nil }
            let keyText = try row.get("app_key", as: String.self)
            guard let app = AppKey(keyText) else { throw .decoding(column: "apps.app_key", message: "not a GUID: \(keyText)") }
            return (try Self.user(row, app: app), try row.get("token_hash", as: String.self))
        }
    }

    public func tokens(app: AppKey, user: AppUserID) throws(StoreError) -> CospaceTokens {
        try read { (db: Connection) throws(StoreError) -> CospaceTokens in
            let rows = try db.query("""
                SELECT r.device_id, r.platform, r.push_token, r.application_id, r.apns_sandbox, r.apns_topic
                FROM registrations r JOIN app_users u ON u.id = r.owner_user JOIN apps p ON p.id = u.app_id
                WHERE p.app_key = ? AND u.user_id = ? AND u.revoked_at IS NULL AND r.status <> 'Invalid'
                      AND r.push_token IS NOT NULL
                ORDER BY r.id
                """, [.text(app.text), .text(user.text)])
            return CospaceTokens(entries: try rows.map { (row) throws(StoreError) -> CospaceTokens.Entry in try Self.entry(row) })
        }
    }

    public func addToken(_ token: CospaceToken, app: AppKey, user: AppUserID, at now: Timestamp) async throws(StoreError) {
        let changed = try await write { (db: Connection) throws(StoreError) -> [DeviceID] in
            guard let appID = try Self.appID(app, on: db) else {
                throw StoreError.decoding(column: "registrations.app_id", message: "no app has key \(app)")
            }
            guard let owner = try db.scalar("SELECT id FROM app_users WHERE app_id = ? AND user_id = ? AND revoked_at IS NULL",
                                            [.integer(appID), .text(user.text)], as: Int64.self) else {
                throw StoreError.decoding(column: "registrations.owner_user", message: "no active user \(user) of app \(app)")
            }
            var applicationID: String?, sandbox: Bool?, topic: String?
            if case .apns(_, let id, let environment, let ownTopic) = token {
                (applicationID, sandbox, topic) = (id, environment, ownTopic)
            }
            let fields: [SQLValue] = [.text(token.platform.wireName), applicationID?.sqlValue ?? .null,
                                      sandbox?.sqlValue ?? .null, topic?.sqlValue ?? .null]
            if let existing = try db.queryFirst("SELECT id, device_id, origin FROM registrations WHERE app_id = ? AND push_token = ?",
                                                [.integer(appID), .text(token.token.text)]) {
                let device = try existing.get("device_id", as: String.self)
                if try existing.get("origin", as: String.self) != "cm" {
                    // Ours, another user's, or a push address: it becomes this user's cospace token (alive again).
                    try db.run("""
                        UPDATE registrations SET owner_user = ?, origin = 'cospace', platform = ?, application_id = ?,
                            apns_sandbox = ?, apns_topic = ?, status = 'Unverified', notifications_enabled = 1, updated_at = ?
                        WHERE id = ?
                        """, [.integer(owner)] + fields + [.integer(now.milliseconds), .integer(try existing.get("id", as: Int64.self))])
                    return DeviceID(device).map { [$0] } ?? []
                }
                // An SDK install held it: the token now addresses this user's device, so the install loses it.
                try db.run("UPDATE registrations SET push_token = NULL, updated_at = ? WHERE id = ?",
                           [.integer(now.milliseconds), .integer(try existing.get("id", as: Int64.self))])
                var generator = SystemRandomNumberGenerator()
                let created = DeviceID(GUID.random(using: &generator))
                try Self.insert(created, appID: appID, owner: owner, token: token.token, fields: fields, at: now, on: db)
                return (DeviceID(device).map { [$0] } ?? []) + [created]
            }
            var generator = SystemRandomNumberGenerator()
            let created = DeviceID(GUID.random(using: &generator))
            try Self.insert(created, appID: appID, owner: owner, token: token.token, fields: fields, at: now, on: db)
            return [created]
        }
        registrations.invalidate(changed)
    }

    public func deleteToken(_ token: PushToken, platform: Platform, app: AppKey, user: AppUserID) async throws(StoreError) -> Bool {
        let deleted = try await write { (db: Connection) throws(StoreError) -> [DeviceID] in
            let rows = try db.query("""
                DELETE FROM registrations
                WHERE push_token = ? AND platform = ? AND owner_user = (
                    SELECT u.id FROM app_users u JOIN apps p ON p.id = u.app_id
                    WHERE p.app_key = ? AND u.user_id = ? AND u.revoked_at IS NULL)
                RETURNING device_id
                """, [.text(token.text), .text(platform.wireName), .text(app.text), .text(user.text)])
            return try Self.devices(rows)
        }
        registrations.invalidate(deleted)
        return !deleted.isEmpty
    }

    public func cospaceCounts(app: AppKey) throws(StoreError) -> (users: Int, tokens: Int) {
        try read { (db: Connection) throws(StoreError) -> (users: Int, tokens: Int) in
            guard let appID = try Self.appID(app, on: db) else { return (0, 0) }
            let users = try db.scalar("SELECT count(*) FROM app_users WHERE app_id = ? AND revoked_at IS NULL",
                                      [.integer(appID)], as: Int.self) ?? 0
            let tokens = try db.scalar("SELECT count(*) FROM registrations WHERE app_id = ? AND origin = 'cospace'",
                                       [.integer(appID)], as: Int.self) ?? 0
            return (users, tokens)
        }
    }

    // MARK: Rows

    private static func appID(_ app: AppKey, on db: Connection) throws(StoreError) -> Int64? {
        try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(app.text)], as: Int64.self)
    }

    /// `fields`: platform, application_id, apns_sandbox, apns_topic.
    private static func insert(_ device: DeviceID, appID: Int64, owner: Int64, token: PushToken, fields: [SQLValue],
                               at now: Timestamp, on db: Connection) throws(StoreError) {
        try db.run("""
            INSERT INTO registrations (device_id, app_id, owner_user, push_token, platform, application_id, apns_sandbox,
                apns_topic, status, origin, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'Unverified', 'cospace', ?, ?)
            """, [.text(device.text), .integer(appID), .integer(owner), .text(token.text)] + fields
                + [.integer(now.milliseconds), .integer(now.milliseconds)])
    }

    /// The `device_id` column of `rows`.
    private static func devices(_ rows: [Row]) throws(StoreError) -> [DeviceID] {
        var devices: [DeviceID] = []
        for row in rows {
            if let device = DeviceID(try row.get("device_id", as: String.self)) { devices.append(device) }
        }
        return devices
    }

    private static func user(_ row: Row, app: AppKey) throws(StoreError) -> AppUser {
        let idText = try row.get("user_id", as: String.self)
        guard let id = AppUserID(idText) else { throw .decoding(column: "app_users.user_id", message: "not a UUID: \(idText)") }
        return AppUser(id: id, app: app, createdAt: Timestamp(milliseconds: try row.get("created_at", as: Int64.self)),
                       revokedAt: try row.get("revoked_at", as: Int64?.self).map { Timestamp(milliseconds: $0) })
    }

    private static func entry(_ row: Row) throws(StoreError) -> CospaceTokens.Entry {
        let deviceText = try row.get("device_id", as: String.self)
        var malformed: StoreError { .decoding(column: "registrations", message: "cospace token \(deviceText) has a malformed stored value") }
        guard let device = DeviceID(deviceText), let token = PushToken(try row.get("push_token", as: String.self)),
              let platform = Platform(wireName: try row.get("platform", as: String.self)) else { throw malformed }
        switch platform {
        case .android:
            return CospaceTokens.Entry(device: device, token: .gcm(registrationID: token))
        case .iOS:
            guard let applicationID = try row.get("application_id", as: String?.self) else { throw malformed }
            return CospaceTokens.Entry(device: device, token: .apns(deviceToken: token, applicationID: applicationID,
                                                                    sandbox: try row.get("apns_sandbox", as: Bool?.self),
                                                                    topic: try row.get("apns_topic", as: String?.self)))
        case .windowsPhone:
            throw malformed
        }
    }
}
