import TandemCore

/// Accounts and apps: the sender-side registry the gateway authenticates against.
extension Store {
    /// Stores a new account. A product token already in use fails with a unique-constraint `StoreError`.
    public func insert(_ account: Account) async throws(StoreError) {
        try await write { (db: Connection) throws(StoreError) in
            try db.run("INSERT INTO accounts (name, product_token, created_at, disabled) VALUES (?, ?, ?, ?)",
                       [.text(account.name), .text(account.productToken.text), .integer(account.createdAt),
                        .integer(account.disabled ? 1 : 0)])
        }
    }

    /// Every account, disabled or not.
    public func accounts() throws(StoreError) -> [Account] {
        try read { (db: Connection) throws(StoreError) -> [Account] in
            try db.query("SELECT name, product_token, created_at, disabled FROM accounts ORDER BY id").map { (row) throws(StoreError) in
                let tokenText = try row.get("product_token", as: String.self)
                guard let token = ProductToken(tokenText) else {
                    throw StoreError.decoding(column: "product_token", message: "not a GUID: \(tokenText)")
                }
                return Account(name: try row.get("name", as: String.self), productToken: token,
                               createdAt: try row.get("created_at", as: Int64.self), disabled: try row.get("disabled", as: Bool.self))
            }
        }
    }

    /// The account with this product token, disabled or not; nil when there is none.
    public func account(productToken: ProductToken) throws(StoreError) -> Account? {
        try read { (db: Connection) throws(StoreError) -> Account? in
            guard let row = try db.queryFirst("SELECT name, created_at, disabled FROM accounts WHERE product_token = ?",
                                              [.text(productToken.text)]) else { return nil }
            return Account(name: try row.get("name", as: String.self), productToken: productToken,
                           createdAt: try row.get("created_at", as: Int64.self), disabled: try row.get("disabled", as: Bool.self))
        }
    }

    /// Stores a new app under its account (which must exist: else a foreign-key or `.decoding` error).
    public func insert(_ app: App) async throws(StoreError) {
        try await write { (db: Connection) throws(StoreError) in
            guard let accountID = try db.scalar("SELECT id FROM accounts WHERE product_token = ?",
                                                [.text(app.account.text)], as: Int64.self) else {
                throw StoreError.decoding(column: "account_id", message: "no account has product token \(app.account)")
            }
            try db.run("""
                INSERT INTO apps (account_id, name, app_key, app_secret, default_message_type, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.integer(accountID), .text(app.name), .text(app.key.text), .text(app.secret.text),
                      .text(app.defaultMessageType.wireName), .integer(app.createdAt)])
        }
    }

    /// The app with this key; nil when there is none.
    public func app(key: AppKey) throws(StoreError) -> App? {
        try read { (db: Connection) throws(StoreError) -> App? in
            guard let row = try db.queryFirst("""
                SELECT p.name, p.app_secret, p.default_message_type, p.created_at, a.product_token
                FROM apps p JOIN accounts a ON a.id = p.account_id WHERE p.app_key = ?
                """, [.text(key.text)]) else { return nil }
            let typeName = try row.get("default_message_type", as: String.self)
            let secretText = try row.get("app_secret", as: String.self)
            let tokenText = try row.get("product_token", as: String.self)
            guard let type = AppMessageType(wireName: typeName), let secret = AppSecret(secretText),
                  let token = ProductToken(tokenText) else {
                throw StoreError.decoding(column: "apps", message: "app \(key) has a malformed stored value")
            }
            return App(key: key, secret: secret, name: try row.get("name", as: String.self), account: token,
                       defaultMessageType: type, createdAt: try row.get("created_at", as: Int64.self))
        }
    }
}
