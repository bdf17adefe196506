import TandemCore

/// cospace's users and their push tokens on PostgreSQL (``CospaceRegistry``), with SQLite's contract
/// (`Store+Cospace.swift`): `app_users`, and registrations with origin `cospace` owned by a user
/// (`registrations.owner_user`).
///
/// Each write is one writer job whose statements need no earlier answer: a branch SQLite takes in Swift is a
/// condition in SQL here, and each statement sees what the ones before it in the job changed. No registration
/// cache: every read asks the server.
extension PGStore: CospaceRegistry {
    /// A token hash another user holds fails with SQLSTATE 23505 (as SQLite's UNIQUE).
    public func addUser(app: AppKey, user: AppUserID, tokenHash: String, at now: Timestamp) async throws(PGError) -> AppUserAddition {
        let results = try await write([PGStatement("""
            WITH app AS (SELECT id FROM apps WHERE app_key = $1),
                 existing AS (SELECT u.id, u.revoked_at FROM app_users u JOIN app ON u.app_id = app.id WHERE u.user_id = $2),
                 revived AS (UPDATE app_users SET token_hash = $3, revoked_at = NULL, created_at = $4
                             WHERE id = (SELECT id FROM existing WHERE revoked_at IS NOT NULL) RETURNING 1),
                 inserted AS (INSERT INTO app_users (app_id, user_id, token_hash, created_at)
                              SELECT id, $2, $3, $4 FROM app WHERE NOT EXISTS (SELECT 1 FROM existing) RETURNING 1)
            SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM app) THEN 'unknownApp'
                        WHEN EXISTS (SELECT 1 FROM revived) OR EXISTS (SELECT 1 FROM inserted) THEN 'added'
                        ELSE 'exists' END
            """, [app.text, user.text, tokenHash, String(now.milliseconds)])])
        switch results.first?.scalar {
        case "added": return .added
        case "exists": return .exists
        default: return .unknownApp
        }
    }

    public func users(app: AppKey) async throws(PGError) -> [AppUser]? {
        let rows = try await read { db throws(PGError) in
            try db.execute("""
                SELECT p.id, u.user_id, u.created_at, u.revoked_at FROM apps p LEFT JOIN app_users u ON u.app_id = p.id
                WHERE p.app_key = $1 ORDER BY u.id
                """, [app.text]).rows
        }
        guard !rows.isEmpty else { return nil }
        return try rows.filter { $0[1] != nil }.map { (row) throws(PGError) in try Self.cospaceUser(row, from: 1, app: app) }
    }

    public func isActiveUser(app: AppKey, user: AppUserID) async throws(PGError) -> Bool {
        try await read { db throws(PGError) in
            try db.execute("""
                SELECT count(*) FROM app_users u JOIN apps p ON p.id = u.app_id
                WHERE p.app_key = $1 AND u.user_id = $2 AND u.revoked_at IS NULL
                """, [app.text, user.text]).scalar == "1"
        }
    }

    /// The user's push tokens are deleted and the user revoked, in one statement.
    public func revokeUser(app: AppKey, user: AppUserID, at now: Timestamp) async throws(PGError) -> AppUserRevocation {
        let results = try await write([PGStatement("""
            WITH app AS (SELECT id FROM apps WHERE app_key = $1),
                 target AS (SELECT u.id FROM app_users u JOIN app ON u.app_id = app.id
                            WHERE u.user_id = $2 AND u.revoked_at IS NULL),
                 deleted AS (DELETE FROM registrations WHERE owner_user = (SELECT id FROM target) RETURNING 1),
                 revoked AS (UPDATE app_users SET revoked_at = $3 WHERE id = (SELECT id FROM target) RETURNING 1)
            SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM app) THEN 'unknownApp'
                        WHEN EXISTS (SELECT 1 FROM revoked) THEN 'revoked' ELSE 'unknownUser' END,
                   (SELECT count(*) FROM deleted)
            """, [app.text, user.text, String(now.milliseconds)])])
        switch results.first?.scalar {
        case "revoked": return .revoked
        case "unknownUser": return .unknownUser
        default: return .unknownApp
        }
    }

    public func user(tokenHash: String) async throws(PGError) -> (user: AppUser, storedHash: String)? {
        let row = try await read { db throws(PGError) in
            try db.execute("""
                SELECT p.app_key, u.user_id, u.created_at, u.revoked_at, u.token_hash
                FROM app_users u JOIN apps p ON p.id = u.app_id WHERE u.token_hash = $1
                """, [tokenHash]).rows.first
        }
        guard let row else { return nil }
        guard let app = row[0].flatMap(AppKey.init) else { throw .client("apps.app_key: not a GUID: \(row[0] ?? "NULL")") }
        return (try Self.cospaceUser(row, from: 1, app: app), row[4] ?? "")
    }

    public func tokens(app: AppKey, user: AppUserID) async throws(PGError) -> CospaceTokens {
        let rows = try await read { db throws(PGError) in
            try db.execute("""
                SELECT r.device_id, r.platform, r.push_token, r.application_id, r.apns_sandbox, r.apns_topic
                FROM registrations r JOIN app_users u ON u.id = r.owner_user JOIN apps p ON p.id = u.app_id
                WHERE p.app_key = $1 AND u.user_id = $2 AND u.revoked_at IS NULL AND r.status <> 'Invalid'
                      AND r.push_token IS NOT NULL
                ORDER BY r.id
                """, [app.text, user.text]).rows
        }
        return CospaceTokens(entries: try rows.map { (row) throws(PGError) in try Self.cospaceEntry(row) })
    }

    /// One job: the app and the active user must exist (else SQLSTATE 23503, as SQLite's `.decoding` refusal: nothing
    /// changes); a registration of the app holding the token that is not an SDK install's becomes this user's; an SDK
    /// install holding it loses it; with none holding it now, a new registration is inserted.
    public func addToken(_ token: CospaceToken, app: AppKey, user: AppUserID, at now: Timestamp) async throws(PGError) {
        var applicationID: String?, sandbox: Bool?, topic: String?
        if case .apns(_, let id, let environment, let ownTopic) = token {
            (applicationID, sandbox, topic) = (id, environment, ownTopic)
        }
        var generator = SystemRandomNumberGenerator()
        let created = DeviceID(GUID.random(using: &generator))
        let at = String(now.milliseconds)
        // $1 app key, $2 user id, $3 token, $4 platform, $5 application id, $6 sandbox, $7 topic, $8 now.
        let parameters: [String?] = [app.text, user.text, token.token.text, token.platform.wireName, applicationID,
                                     sandbox?.pgText, topic, at]
        let owner = """
            (SELECT u.id FROM app_users u JOIN apps p ON p.id = u.app_id
             WHERE p.app_key = $1 AND u.user_id = $2 AND u.revoked_at IS NULL)
            """
        _ = try await write([
            .appMustExist(app),
            PGStatement("SELECT tandem_expect(count(*), 1, '23503', $3) FROM app_users u JOIN apps p ON p.id = u.app_id "
                        + "WHERE p.app_key = $1 AND u.user_id = $2 AND u.revoked_at IS NULL",
                        [app.text, user.text, "no active user \(user) of app \(app)"]),
            // Ours, another user's, or a push address: it becomes this user's cospace token (alive again).
            PGStatement("""
                UPDATE registrations SET owner_user = \(owner), origin = 'cospace', platform = $4, application_id = $5,
                    apns_sandbox = $6::boolean, apns_topic = $7, status = 'Unverified', notifications_enabled = true,
                    updated_at = $8
                WHERE app_id = (SELECT id FROM apps WHERE app_key = $1) AND push_token = $3 AND origin <> 'cm'
                """, parameters),
            // An SDK install held it: the token now addresses this user's device, so the install loses it.
            PGStatement("""
                UPDATE registrations SET push_token = NULL, updated_at = $3
                WHERE app_id = (SELECT id FROM apps WHERE app_key = $1) AND push_token = $2 AND origin = 'cm'
                """, [app.text, token.token.text, at]),
            PGStatement("""
                INSERT INTO registrations (device_id, app_id, owner_user, push_token, platform, application_id, apns_sandbox,
                    apns_topic, status, origin, created_at, updated_at)
                SELECT $9, p.id, \(owner), $3, $4, $5, $6::boolean, $7, 'Unverified', 'cospace', $8, $8 FROM apps p
                WHERE p.app_key = $1 AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.app_id = p.id AND r.push_token = $3)
                """, parameters + [created.text]),
        ])
    }

    @discardableResult
    public func deleteToken(_ token: PushToken, platform: Platform, app: AppKey, user: AppUserID) async throws(PGError) -> Bool {
        let results = try await write([PGStatement("""
            DELETE FROM registrations
            WHERE push_token = $1 AND platform = $2 AND owner_user = (
                SELECT u.id FROM app_users u JOIN apps p ON p.id = u.app_id
                WHERE p.app_key = $3 AND u.user_id = $4 AND u.revoked_at IS NULL)
            """, [token.text, platform.wireName, app.text, user.text])])
        return (results.first?.changedRows ?? 0) > 0
    }

    public func cospaceCounts(app: AppKey) async throws(PGError) -> (users: Int, tokens: Int) {
        let row = try await read { db throws(PGError) in
            try db.execute("""
                SELECT (SELECT count(*) FROM app_users WHERE app_id = p.id AND revoked_at IS NULL),
                       (SELECT count(*) FROM registrations WHERE app_id = p.id AND origin = 'cospace')
                FROM apps p WHERE p.app_key = $1
                """, [app.text]).rows.first
        }
        guard let row else { return (0, 0) }
        return (Int(row[0] ?? "") ?? 0, Int(row[1] ?? "") ?? 0)
    }

    // MARK: Rows

    /// `user_id, created_at, revoked_at` from column `from` on.
    private static func cospaceUser(_ row: [String?], from start: Int, app: AppKey) throws(PGError) -> AppUser {
        let idText = row[start] ?? ""
        guard let id = AppUserID(idText) else { throw .client("app_users.user_id: not a UUID: \(idText)") }
        return AppUser(id: id, app: app, createdAt: Timestamp(milliseconds: Int64(row[start + 1] ?? "") ?? 0),
                       revokedAt: row[start + 2].flatMap { Int64($0) }.map { Timestamp(milliseconds: $0) })
    }

    /// `device_id, platform, push_token, application_id, apns_sandbox, apns_topic`.
    private static func cospaceEntry(_ row: [String?]) throws(PGError) -> CospaceTokens.Entry {
        let deviceText = row[0] ?? ""
        let malformed = PGError.client("registrations: cospace token \(deviceText) has a malformed stored value")
        guard let device = DeviceID(deviceText), let token = row[2].flatMap(PushToken.init),
              let platform = Platform(wireName: row[1] ?? "") else { throw malformed }
        switch platform {
        case .android:
            return CospaceTokens.Entry(device: device, token: .gcm(registrationID: token))
        case .iOS:
            guard let applicationID = row[3] else { throw malformed }
            return CospaceTokens.Entry(device: device, token: .apns(deviceToken: token, applicationID: applicationID,
                                                                    sandbox: row[4].map { $0 == "t" }, topic: row[5]))
        case .windowsPhone:
            throw malformed
        }
    }
}
