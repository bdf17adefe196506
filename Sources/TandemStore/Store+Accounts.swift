import TandemCore

/// Accounts: the senders the gateway authenticates (apps are in `Store+Apps.swift`).
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
            try db.query("SELECT name, product_token, created_at, disabled, sms_countries FROM accounts ORDER BY id").map { (row) throws(StoreError) in
                let tokenText = try row.get("product_token", as: String.self)
                guard let token = ProductToken(tokenText) else {
                    throw StoreError.decoding(column: "product_token", message: "not a GUID: \(tokenText)")
                }
                return Account(name: try row.get("name", as: String.self), productToken: token,
                               createdAt: try row.get("created_at", as: Int64.self), disabled: try row.get("disabled", as: Bool.self),
                               smsCountries: try Self.smsSetting(row, "sms_countries", default: SMSCountryPolicy()))
            }
        }
    }

    /// The account with this product token, disabled or not; nil when there is none.
    public func account(productToken: ProductToken) throws(StoreError) -> Account? {
        try read { (db: Connection) throws(StoreError) -> Account? in
            guard let row = try db.queryFirst("SELECT name, created_at, disabled, sms_countries FROM accounts WHERE product_token = ?",
                                              [.text(productToken.text)]) else { return nil }
            return Account(name: try row.get("name", as: String.self), productToken: productToken,
                           createdAt: try row.get("created_at", as: Int64.self), disabled: try row.get("disabled", as: Bool.self),
                           smsCountries: try Self.smsSetting(row, "sms_countries", default: SMSCountryPolicy()))
        }
    }
}

/// Account administration: disabling, enabling and replacing the product token.
///
/// Accounts are never deleted (their messages keep their history); a disabled account's requests are refused
/// by a running server within the authenticator's refresh age (5 s).
extension Store {
    /// Disables or enables the account. False (nothing changed) when no account has the token.
    public func setDisabled(account: ProductToken, _ disabled: Bool) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE accounts SET disabled = ? WHERE product_token = ?",
                       [.integer(disabled ? 1 : 0), .text(account.text)]) == 1
        }
    }

    /// Replaces the account's product token with `newToken`; the old one stops authenticating. Messages,
    /// apps and settings stay with the account (they refer to it by its row, not its token). False when no
    /// account has `account`; a `newToken` already in use fails with a unique-constraint `StoreError`.
    public func replaceProductToken(_ account: ProductToken, with newToken: ProductToken) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE accounts SET product_token = ? WHERE product_token = ?",
                       [.text(newToken.text), .text(account.text)]) == 1
        }
    }
}
