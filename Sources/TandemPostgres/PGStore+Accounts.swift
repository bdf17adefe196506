import Foundation
import TandemCore

/// Accounts on PostgreSQL, as SQLite's `Store+Accounts.swift`: the senders the gateway authenticates, and their
/// administration (disabling, replacing the product token). Accounts are never deleted.
extension PGStore {
    /// Stores a new account (its country rule starts as the default, as on SQLite). A product token already in use
    /// fails with SQLSTATE 23505.
    public func insert(_ account: Account) async throws(PGError) {
        _ = try await write([PGStatement("""
            INSERT INTO accounts (name, product_token, created_at, disabled) VALUES ($1, $2, $3, $4)
            """, [account.name, account.productToken.text, account.createdAt.pgText, account.disabled.pgText])])
    }

    /// Every account, disabled or not, oldest first.
    public func accounts() async throws(PGError) -> [Account] {
        let result = try await read { db throws(PGError) in
            try db.execute("SELECT name, product_token, created_at, disabled, sms_countries FROM accounts ORDER BY id")
        }
        return try result.rows("account").map { (row) throws(PGError) in try Self.account(row) }
    }

    /// The account with this product token, disabled or not; nil when there is none.
    public func account(productToken: ProductToken) async throws(PGError) -> Account? {
        let result = try await read { db throws(PGError) in
            try db.execute("SELECT name, product_token, created_at, disabled, sms_countries FROM accounts WHERE product_token = $1",
                           [productToken.text])
        }
        guard let row = result.rows("account \(productToken)").first else { return nil }
        return try Self.account(row)
    }

    /// Disables or enables the account. False (nothing changed) when no account has the token.
    public func setDisabled(account: ProductToken, _ disabled: Bool) async throws(PGError) -> Bool {
        try await write([PGStatement("UPDATE accounts SET disabled = $1 WHERE product_token = $2",
                                     [disabled.pgText, account.text])])[0].changedRows == 1
    }

    /// Replaces the account's product token; the old one stops authenticating. False when no account has
    /// `account`; a `newToken` already in use fails with SQLSTATE 23505.
    public func replaceProductToken(_ account: ProductToken, with newToken: ProductToken) async throws(PGError) -> Bool {
        try await write([PGStatement("UPDATE accounts SET product_token = $1 WHERE product_token = $2",
                                     [newToken.text, account.text])])[0].changedRows == 1
    }

    /// `name, product_token, created_at, disabled, sms_countries` from column `first` on: every read of an account
    /// decodes its row here.
    static func account(_ row: PGRow, from first: Int = 0) throws(PGError) -> Account {
        let tokenText = try row.text(first + 1)
        guard let token = ProductToken(tokenText) else { throw .client("accounts.product_token: not a GUID: \(tokenText)") }
        return Account(name: try row.text(first), productToken: token, createdAt: try row.int64(first + 2),
                disabled: try row.bool(first + 3),
                smsCountries: try smsSetting(row.optional(first + 4), "accounts.sms_countries", default: SMSCountryPolicy()))
    }
}
