import Foundation
import TandemCore
import TandemStoreSupport

/// Apps on PostgreSQL, as SQLite's `Store+Apps.swift`: the app manager's registry (``AppRegistry``) and the
/// lookups the gateway makes by app key.
///
/// Push credentials are JSON in `apps.push_credentials` (NULL when none are set), encoded with sorted keys so
/// that equal credentials are equal text; a stored value that does not decode fails the read. Changing one
/// platform's credentials reads the column, changes it and writes it back only if it still holds what was read
/// (else reads again), so a concurrent change of the other platform's credentials is not lost.
extension PGStore: AppRegistry, PushCredentialsSource {
    /// Stores a new app under its account (which must exist: else SQLSTATE 23503). A key already in use fails
    /// with SQLSTATE 23505. The app starts without push credentials.
    public func insert(_ app: App) async throws(PGError) {
        _ = try await write([PGStatement("""
            WITH inserted AS (
                INSERT INTO apps (account_id, name, app_key, app_secret, default_message_type, created_at, sms_protection)
                SELECT id, $2, $3, $4, $5, $6, $7 FROM accounts WHERE product_token = $1
                RETURNING 1)
            SELECT tandem_expect(count(*), 1, '23503', $8) FROM inserted
            """, [app.account.text, app.name, app.key.text, app.secret.text, app.defaultMessageType.wireName, app.createdAt.pgText,
                  try Self.smsSettingText(app.smsProtection, isDefault: app.smsProtection.isDefault),
                  "no account has product token \(app.account)"])])
    }

    /// The app with this key; nil when there is none.
    public func app(key: AppKey) async throws(PGError) -> App? {
        let result = try await read { db throws(PGError) in
            try db.execute("""
                SELECT \(Self.appColumns) FROM apps p JOIN accounts a ON a.id = p.account_id WHERE p.app_key = $1
                """, [key.text])
        }
        return try result.rows("app \(key)").first.map { (row) throws(PGError) in try Self.app(row) }
    }

    /// The account's app with this sender id; nil when there is none.
    public func app(account: ProductToken, senderID: String) async throws(PGError) -> App? {
        let result = try await read { db throws(PGError) in
            try db.execute("""
                SELECT \(Self.appColumns) FROM apps p JOIN accounts a ON a.id = p.account_id WHERE a.product_token = $1 AND p.sender_id = $2
                """, [account.text, senderID])
        }
        return try result.rows("app of sender id \(senderID)").first.map { (row) throws(PGError) in try Self.app(row) }
    }

    /// Every app with its account's name and push credentials, in creation order.
    public func apps() async throws(PGError) -> [AppSummary] {
        let result = try await read { db throws(PGError) in try db.execute("SELECT \(Self.summaryColumns) \(Self.summarySource) ORDER BY p.id") }
        let decoder = JSONDecoder()
        return try result.rows("app").map { (row) throws(PGError) in try Self.summary(row, decoder: decoder) }
    }

    /// The app with this key, its account's name, push credentials and registration counts by status, read in
    /// one statement (one snapshot); nil when there is none.
    public func appDetails(key: AppKey) async throws(PGError) -> AppDetails? {
        let result = try await read { db throws(PGError) in
            try db.execute("""
                SELECT \(Self.summaryColumns),
                       (SELECT json_object_agg(status, n)::text FROM (
                            SELECT status, count(*) AS n FROM registrations WHERE app_id = p.id GROUP BY status) counts)
                \(Self.summarySource) WHERE p.app_key = $1
                """, [key.text])
        }
        guard let row = result.rows("app \(key)").first else { return nil }
        let summary = try Self.summary(row, decoder: JSONDecoder())
        var counts: [RegistrationStatus: Int] = [:]
        if let text = row.optional(10) {
            let decoded: [String: Int]
            do {
                decoded = try JSONDecoder().decode([String: Int].self, from: Data(text.utf8))
            } catch {
                throw .client("registrations of app \(key): \(error)")
            }
            for (name, count) in decoded {
                guard let status = RegistrationStatus(wireName: name) else {
                    throw .client("registrations.status: unknown status \(name)")
                }
                counts[status] = count
            }
        }
        return AppDetails(summary: summary, registrations: counts)
    }

    /// Replaces the app's secret. False (nothing changed) when no app has the key.
    public func rotateSecret(key: AppKey, to secret: AppSecret) async throws(PGError) -> Bool {
        try await write([PGStatement("UPDATE apps SET app_secret = $1 WHERE app_key = $2", [secret.text, key.text])])[0]
            .changedRows == 1
    }

    /// Replaces both platforms' credentials (empty credentials store NULL). False when no app has the key.
    /// Invalid credentials are refused before anything is written.
    public func setPushCredentials(key: AppKey, _ credentials: AppPushCredentials) async throws(PGError) -> Bool {
        let text = try Self.encode(credentials)
        return try await write([PGStatement("UPDATE apps SET push_credentials = $1 WHERE app_key = $2", [text, key.text])])[0]
            .changedRows == 1
    }

    /// Sets (nil: removes) the APNs credentials and keeps the FCM ones. False when no app has the key.
    public func setAPNsCredentials(key: AppKey, _ credentials: APNsCredentials?) async throws(PGError) -> Bool {
        try await updatePushCredentials(key: key) { $0.apns = credentials }
    }

    /// Sets (nil: removes) the FCM credentials and keeps the APNs ones. False when no app has the key.
    public func setFCMCredentials(key: AppKey, _ credentials: FCMCredentials?) async throws(PGError) -> Bool {
        try await updatePushCredentials(key: key) { $0.fcm = credentials }
    }

    /// Sets the type used for the app's messages that name none. False when no app has the key.
    public func setDefaultMessageType(key: AppKey, _ type: AppMessageType) async throws(PGError) -> Bool {
        try await write([PGStatement("UPDATE apps SET default_message_type = $1 WHERE app_key = $2", [type.wireName, key.text])])[0]
            .changedRows == 1
    }

    /// The app's push credentials; nil when no app has the key or it has none.
    public func pushCredentials(for app: AppKey) async throws -> AppPushCredentials? {
        let result = try await read { db throws(PGError) in
            try db.execute("SELECT push_credentials FROM apps WHERE app_key = $1", [app.text])
        }
        guard let row = result.rows.first else { return nil }
        let credentials = try Self.decodeCredentials(row[0], key: app, decoder: JSONDecoder())
        return credentials.isEmpty ? nil : credentials
    }

    /// Reads the credentials, changes them and writes them back if the column still holds what was read; else
    /// again (another write came between).
    private func updatePushCredentials(key: AppKey, _ change: (inout AppPushCredentials) -> Void) async throws(PGError) -> Bool {
        for _ in 0..<Self.rereadLimit {
            let result = try await read { db throws(PGError) in
                try db.execute("SELECT push_credentials::text FROM apps WHERE app_key = $1", [key.text])
            }
            guard let row = result.rows.first else { return false }
            var credentials = try Self.decodeCredentials(row[0], key: key, decoder: JSONDecoder())
            change(&credentials)
            let written = try await write([PGStatement("""
                UPDATE apps SET push_credentials = $1 WHERE app_key = $2 AND push_credentials::text IS NOT DISTINCT FROM $3
                """, [try Self.encode(credentials), key.text, row[0]])])
            if written[0].changedRows == 1 { return true }
        }
        throw .notApplied("the push credentials of app \(key) changed under every one of \(Self.rereadLimit) attempts to change them")
    }

    // MARK: - Rows

    /// The columns ``app(_:)`` reads, over `apps p` and `accounts a`.
    static let appColumns = """
        p.app_key, p.name, p.app_secret, p.default_message_type, p.created_at, p.sms_protection, p.sender_id, a.product_token
        """

    /// The columns ``summary(_:decoder:)`` reads (``appColumns``, then `push_credentials` and the account's name),
    /// without the FROM clause (``summarySource``).
    private static let summaryColumns = "\(appColumns), p.push_credentials, a.name"
    private static let summarySource = "FROM apps p JOIN accounts a ON a.id = p.account_id"

    /// ``appColumns``: `app_key, name, app_secret, default_message_type, created_at, sms_protection, sender_id,
    /// product_token`. Every read of an app decodes its row here.
    static func app(_ row: PGRow) throws(PGError) -> App {
        let keyText = try row.text(0)
        guard let key = AppKey(keyText), let type = AppMessageType(wireName: try row.text(3)),
              let secret = AppSecret(try row.text(2)), let token = ProductToken(try row.text(7)) else {
            throw .client("apps: app \(keyText) has a malformed stored value")
        }
        return App(key: key, secret: secret, name: try row.text(1), account: token, defaultMessageType: type,
                   createdAt: try row.int64(4),
                   smsProtection: try smsSetting(row.optional(5), "apps.sms_protection", default: SMSProtection()),
                   senderID: row.optional(6))
    }

    private static func summary(_ row: PGRow, decoder: JSONDecoder) throws(PGError) -> AppSummary {
        let app = try app(row)
        return AppSummary(app: app, accountName: try row.text(9),
                          pushCredentials: try decodeCredentials(row.optional(8), key: app.key, decoder: decoder))
    }

    private static func decodeCredentials(_ text: String?, key: AppKey, decoder: JSONDecoder) throws(PGError) -> AppPushCredentials {
        do throws(ColumnCodingError) {
            return try PushCredentialsColumn.credentials(from: text, app: key, decoder: decoder)
        } catch {
            throw .client("apps.push_credentials: \(error.message)")
        }
    }

    /// ``PushCredentialsColumn/text(_:)``: nil (NULL) when empty; invalid credentials are refused (``PGError/client(_:)``).
    static func encode(_ credentials: AppPushCredentials) throws(PGError) -> String? {
        do throws(ColumnCodingError) {
            return try PushCredentialsColumn.text(credentials)
        } catch {
            throw .client("apps.push_credentials cannot be written: \(error.message)")
        }
    }
}
