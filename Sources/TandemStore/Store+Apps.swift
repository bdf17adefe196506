import Foundation
import TandemCore
import TandemStoreSupport

/// Apps: the app manager's registry (``AppRegistry``) and the lookups the gateway makes by app key.
///
/// Push credentials are stored as JSON in `apps.push_credentials` (NULL when none are set) in the shape
/// ``AppPushCredentials`` documents; a stored value that does not decode (or no longer validates) fails the
/// read with ``StoreError/decoding(column:message:)`` rather than reading as "not set".
/// Not guaranteed: that an app's account is active — inserting an app only needs the account to exist.
extension Store: AppRegistry, PushCredentialsSource {
    /// Stores a new app under its account (which must exist: else a `.decoding` error). A key already in
    /// use fails with a unique-constraint `StoreError`. The app starts without push credentials.
    public func insert(_ app: App) async throws(StoreError) {
        try await write { (db: Connection) throws(StoreError) in
            guard let accountID = try db.scalar("SELECT id FROM accounts WHERE product_token = ?",
                                                [.text(app.account.text)], as: Int64.self) else {
                throw StoreError.decoding(column: "account_id", message: "no account has product token \(app.account)")
            }
            try db.run("""
                INSERT INTO apps (account_id, name, app_key, app_secret, default_message_type, created_at, sms_protection)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [.integer(accountID), .text(app.name), .text(app.key.text), .text(app.secret.text),
                      .text(app.defaultMessageType.wireName), .integer(app.createdAt),
                      try Self.smsSettingText(app.smsProtection, isDefault: app.smsProtection.isDefault).sqlValue])
        }
    }

    /// The app with this key; nil when there is none. (One indexed row; what the gateway reads per request.)
    public func app(key: AppKey) throws(StoreError) -> App? {
        try read { (db: Connection) throws(StoreError) -> App? in
            guard let row = try db.queryFirst("""
                SELECT p.name, p.app_secret, p.default_message_type, p.created_at, p.sms_protection, p.sender_id, a.product_token
                FROM apps p JOIN accounts a ON a.id = p.account_id WHERE p.app_key = ?
                """, [.text(key.text)]) else { return nil }
            return try Self.app(row, key: key)
        }
    }

    /// Always answered, synchronously: the read is a page-cache hit of a few microseconds, cheaper than a task.
    public func cachedApp(key: AppKey) throws(StoreError) -> App?? {
        .some(try app(key: key))
    }

    /// The account's app with this sender id; nil when there is none.
    public func app(account: ProductToken, senderID: String) throws(StoreError) -> App? {
        try read { (db: Connection) throws(StoreError) -> App? in
            guard let row = try db.queryFirst("""
                SELECT p.app_key, p.name, p.app_secret, p.default_message_type, p.created_at, p.sms_protection, p.sender_id,
                       a.product_token
                FROM apps p JOIN accounts a ON a.id = p.account_id WHERE a.product_token = ? AND p.sender_id = ?
                """, [.text(account.text), .text(senderID)]) else { return nil }
            let keyText = try row.get("app_key", as: String.self)
            guard let key = AppKey(keyText) else { throw StoreError.decoding(column: "apps.app_key", message: keyText) }
            return try Self.app(row, key: key)
        }
    }

    /// Sets or clears the app's sender id; false when there is no such app. Another app of the same account
    /// with that sender id → ``StoreError/constraint(extendedCode:message:sql:)``.
    public func setSenderID(app key: AppKey, to senderID: String?) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE apps SET sender_id = ? WHERE app_key = ?", [senderID.sqlValue, .text(key.text)]) == 1
        }
    }

    /// Every app with its account's name and push credentials, in creation order.
    public func apps() throws(StoreError) -> [AppSummary] {
        try read { (db: Connection) throws(StoreError) -> [AppSummary] in
            let decoder = JSONDecoder()
            return try db.query("SELECT \(Self.summaryColumns) ORDER BY p.id").map { (row) throws(StoreError) in
                let keyText = try row.get("app_key", as: String.self)
                guard let key = AppKey(keyText) else {
                    throw .decoding(column: "apps.app_key", message: "not a GUID: \(keyText)")
                }
                return try Self.summary(row, key: key, decoder: decoder)
            }
        }
    }

    /// The app with this key, its account's name, push credentials and registration counts by status
    /// (one `GROUP BY` over the app's registrations), read in one snapshot; nil when there is none.
    public func appDetails(key: AppKey) throws(StoreError) -> AppDetails? {
        try readSnapshot { (db: Connection) throws(StoreError) -> AppDetails? in
            guard let row = try db.queryFirst("SELECT p.id AS app_id, \(Self.summaryColumns) WHERE p.app_key = ?",
                                              [.text(key.text)]) else { return nil }
            let summary = try Self.summary(row, key: key, decoder: JSONDecoder())
            var counts: [RegistrationStatus: Int] = [:]
            for count in try db.query("SELECT status, count(*) AS n FROM registrations WHERE app_id = ? GROUP BY status",
                                      [.integer(try row.get("app_id", as: Int64.self))]) {
                let text = try count.get("status", as: String.self)
                guard let status = RegistrationStatus(wireName: text) else {
                    throw .decoding(column: "registrations.status", message: "unknown status \(text)")
                }
                counts[status] = try count.get("n", as: Int.self)
            }
            return AppDetails(summary: summary, registrations: counts)
        }
    }

    /// Replaces the app's secret. False (nothing changed) when no app has the key.
    public func rotateSecret(key: AppKey, to secret: AppSecret) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE apps SET app_secret = ? WHERE app_key = ?", [.text(secret.text), .text(key.text)]) == 1
        }
    }

    /// Replaces both platforms' credentials (empty credentials store NULL). False when no app has the key.
    /// Invalid credentials are refused with `.encoding` before anything is written.
    public func setPushCredentials(key: AppKey, _ credentials: AppPushCredentials) async throws(StoreError) -> Bool {
        let text = try Self.encode(credentials)
        return try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE apps SET push_credentials = ? WHERE app_key = ?", [text.sqlValue, .text(key.text)]) == 1
        }
    }

    /// Sets (nil: removes) the APNs credentials and keeps the FCM ones; read, change and write happen in
    /// one write body, so a concurrent `setFCMCredentials` is not lost. False when no app has the key.
    public func setAPNsCredentials(key: AppKey, _ credentials: APNsCredentials?) async throws(StoreError) -> Bool {
        try await updatePushCredentials(key: key) { $0.apns = credentials }
    }

    /// Sets (nil: removes) the FCM credentials and keeps the APNs ones (see ``setAPNsCredentials(key:_:)``).
    public func setFCMCredentials(key: AppKey, _ credentials: FCMCredentials?) async throws(StoreError) -> Bool {
        try await updatePushCredentials(key: key) { $0.fcm = credentials }
    }

    /// Sets the type used for the app's messages that name none. False when no app has the key.
    public func setDefaultMessageType(key: AppKey, _ type: AppMessageType) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE apps SET default_message_type = ? WHERE app_key = ?",
                       [.text(type.wireName), .text(key.text)]) == 1
        }
    }

    /// The app's push credentials (``PushCredentialsSource``); nil when no app has the key or it has none.
    public func pushCredentials(for app: AppKey) async throws -> AppPushCredentials? {
        try read { (db: Connection) throws(StoreError) -> AppPushCredentials? in
            guard let row = try db.queryFirst("SELECT push_credentials FROM apps WHERE app_key = ?", [.text(app.text)]) else {
                return nil
            }
            let credentials = try Self.decodeCredentials(try row.get("push_credentials", as: String?.self), key: app,
                                                         decoder: JSONDecoder())
            return credentials.isEmpty ? nil : credentials
        }
    }

    private func updatePushCredentials(
        key: AppKey, _ change: @escaping @Sendable (inout AppPushCredentials) -> Void
    ) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            guard let row = try db.queryFirst("SELECT push_credentials FROM apps WHERE app_key = ?", [.text(key.text)]) else {
                return false
            }
            var credentials = try Self.decodeCredentials(try row.get("push_credentials", as: String?.self), key: key,
                                                         decoder: JSONDecoder())
            change(&credentials)
            try db.run("UPDATE apps SET push_credentials = ? WHERE app_key = ?",
                       [try Self.encode(credentials).sqlValue, .text(key.text)])
            return true
        }
    }

    // MARK: - Rows

    /// The columns ``summary(_:key:decoder:)`` reads, with the FROM clause (append WHERE / ORDER BY).
    private static let summaryColumns = """
        p.app_key, p.name, p.app_secret, p.default_message_type, p.push_credentials, p.created_at, p.sms_protection,
        p.sender_id, a.product_token, a.name AS account_name
        FROM apps p JOIN accounts a ON a.id = p.account_id
        """

    static func app(_ row: Row, key: AppKey) throws(StoreError) -> App {
        let typeName = try row.get("default_message_type", as: String.self)
        let secretText = try row.get("app_secret", as: String.self)
        let tokenText = try row.get("product_token", as: String.self)
        guard let type = AppMessageType(wireName: typeName), let secret = AppSecret(secretText),
              let token = ProductToken(tokenText) else {
            throw StoreError.decoding(column: "apps", message: "app \(key) has a malformed stored value")
        }
        return App(key: key, secret: secret, name: try row.get("name", as: String.self), account: token,
                   defaultMessageType: type, createdAt: try row.get("created_at", as: Int64.self),
                   smsProtection: try smsSetting(row, "sms_protection", default: SMSProtection()),
                   senderID: try row.get("sender_id", as: String?.self))
    }

    private static func summary(_ row: Row, key: AppKey, decoder: JSONDecoder) throws(StoreError) -> AppSummary {
        AppSummary(app: try app(row, key: key), accountName: try row.get("account_name", as: String.self),
                   pushCredentials: try decodeCredentials(try row.get("push_credentials", as: String?.self),
                                                          key: key, decoder: decoder))
    }

    private static func decodeCredentials(_ text: String?, key: AppKey,
                                          decoder: JSONDecoder) throws(StoreError) -> AppPushCredentials {
        do throws(ColumnCodingError) {
            return try PushCredentialsColumn.credentials(from: text, app: key, decoder: decoder)
        } catch {
            throw .decoding(column: "apps.push_credentials", message: error.message)
        }
    }

    /// ``PushCredentialsColumn/text(_:)``: nil (SQL NULL) when empty; invalid credentials are refused.
    static func encode(_ credentials: AppPushCredentials) throws(StoreError) -> String? {
        do throws(ColumnCodingError) {
            return try PushCredentialsColumn.text(credentials)
        } catch {
            throw .encoding(column: "apps.push_credentials", message: error.message)
        }
    }
}
