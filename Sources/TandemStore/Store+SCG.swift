import Foundation
import TandemCore
import TandemStoreSupport

/// The SCG messaging API's storage: bearer-token digests (``SCGTokenStore``), its own messages
/// (``SCGMessageStore``: `messages.api = 'scg'`, not hidden) and apps' sender ids (``AppSenderIDStore``).
extension Store: SCGTokenStore, SCGMessageStore, AppSenderIDStore {
    // MARK: Tokens

    public func insertSCGToken(account: ProductToken, digest: [UInt8], label: String,
                               createdAt: Timestamp) async throws(StoreError) -> SCGTokenInfo? {
        let hex = StoredHex.text(digest)
        return try await write { (db: Connection) throws(StoreError) -> SCGTokenInfo? in
            guard let accountID = try db.scalar("SELECT id FROM accounts WHERE product_token = ?", [.text(account.text)],
                                                as: Int64.self) else { return nil }
            guard let row = try db.queryFirst("""
                INSERT INTO scg_tokens (account_id, token_sha256, label, created_at) VALUES (?, ?, ?, ?) RETURNING id
                """, [.integer(accountID), .text(hex), .text(label), .integer(createdAt.milliseconds)]) else {
                throw StoreError.decoding(column: "scg_tokens.id", message: "the insert returned no id")
            }
            return SCGTokenInfo(id: try row.get("id", as: Int64.self), account: account, label: label, createdAt: createdAt,
                                revokedAt: nil)
        }
    }

    public func scgTokens(account: ProductToken) throws(StoreError) -> [SCGTokenInfo]? {
        try readSnapshot { (db: Connection) throws(StoreError) -> [SCGTokenInfo]? in
            guard let accountID = try db.scalar("SELECT id FROM accounts WHERE product_token = ?", [.text(account.text)],
                                                as: Int64.self) else { return nil }
            return try db.query("SELECT id, label, created_at, revoked_at FROM scg_tokens WHERE account_id = ? ORDER BY id",
                                [.integer(accountID)]).map { (row) throws(StoreError) in
                SCGTokenInfo(id: try row.get("id", as: Int64.self), account: account, label: try row.get("label", as: String.self),
                             createdAt: Timestamp(milliseconds: try row.get("created_at", as: Int64.self)),
                             revokedAt: try row.get("revoked_at", as: Int64?.self).map(Timestamp.init(milliseconds:)))
            }
        }
    }

    public func revokeSCGToken(account: ProductToken, id: Int64, at: Timestamp) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("""
                UPDATE scg_tokens SET revoked_at = ?
                WHERE id = ? AND revoked_at IS NULL AND account_id = (SELECT id FROM accounts WHERE product_token = ?)
                """, [.integer(at.milliseconds), .integer(id), .text(account.text)]) == 1
        }
    }

    public func scgTokenGrant(digest: [UInt8]) throws(StoreError) -> SCGTokenGrant? {
        let tokenText = try read { (db: Connection) throws(StoreError) -> String? in
            try db.scalar("""
                SELECT a.product_token FROM scg_tokens t JOIN accounts a ON a.id = t.account_id
                WHERE t.token_sha256 = ? AND t.revoked_at IS NULL
                """, [.text(StoredHex.text(digest))], as: String.self)
        }
        guard let tokenText else { return nil }
        guard let productToken = ProductToken(tokenText) else {
            throw .decoding(column: "accounts.product_token", message: "not a GUID: \(tokenText)")
        }
        return try account(productToken: productToken).map { SCGTokenGrant(digest: digest, account: $0) }
    }

    // MARK: Messages

    public func scgMessage(account: ProductToken, id: GUID) throws(StoreError) -> MessageView? {
        try scgMessageViews(account: account, condition: "m.message_id = ?", [.text(id.text)], suffix: "").first
    }

    public func scgMessages(account: ProductToken, offset: Int, limit: Int) throws(StoreError) -> (messages: [MessageView], total: Int) {
        try readSnapshot { (db: Connection) throws(StoreError) -> (messages: [MessageView], total: Int) in
            guard let accountID = try db.scalar("SELECT id FROM accounts WHERE product_token = ?", [.text(account.text)],
                                                as: Int64.self) else { return ([], 0) }
            let total = try db.scalar("""
                SELECT count(*) FROM messages WHERE account_id = ? AND api = 'scg' AND hidden = 0
                """, [.integer(accountID)], as: Int64.self) ?? 0
            let views = try Self.scgViews(on: db, accountID: accountID, condition: "1", [],
                                          suffix: "ORDER BY m.id DESC LIMIT \(max(0, limit)) OFFSET \(max(0, offset))",
                                          policies: policies)
            return (views, Int(total))
        }
    }

    public func hideSCGMessage(account: ProductToken, id: GUID) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("""
                UPDATE messages SET hidden = 1
                WHERE message_id = ? AND api = 'scg' AND hidden = 0
                  AND account_id = (SELECT id FROM accounts WHERE product_token = ?)
                """, [.text(id.text), .text(account.text)]) == 1
        }
    }

    private func scgMessageViews(account: ProductToken, condition: String, _ bindings: [SQLValue],
                                 suffix: String) throws(StoreError) -> [MessageView] {
        try readSnapshot { (db: Connection) throws(StoreError) -> [MessageView] in
            guard let accountID = try db.scalar("SELECT id FROM accounts WHERE product_token = ?", [.text(account.text)],
                                                as: Int64.self) else { return [] }
            return try Self.scgViews(on: db, accountID: accountID, condition: condition, bindings, suffix: suffix,
                                     policies: policies)
        }
    }

    private static func scgViews(on db: Connection, accountID: Int64, condition: String, _ bindings: [SQLValue],
                                 suffix: String, policies: PolicyCatalog) throws(StoreError) -> [MessageView] {
        let rows = try db.query("""
            SELECT m.id, m.message_id, m.reference, m.sender, m.message_type, m.fallback_for, m.created_at, p.app_key,
                   m.api, m.extra, m.body
            FROM messages m LEFT JOIN apps p ON p.id = m.app_id
            WHERE m.account_id = ? AND m.api = 'scg' AND m.hidden = 0 AND \(condition)
            \(suffix)
            """, [.integer(accountID)] + bindings)
        let decoder = policies.decoder()
        return try rows.map { (row) throws(StoreError) -> MessageView in
            try messageView(row, on: db, policies: policies, decoder: decoder)
        }
    }

    // MARK: Sender ids

    public func changeSenderID(app: AppKey, to senderID: String?) async throws(StoreError) -> SenderIDChange {
        try await write { (db: Connection) throws(StoreError) -> SenderIDChange in
            guard let row = try db.queryFirst("SELECT id, account_id FROM apps WHERE app_key = ?", [.text(app.text)]) else {
                return .unknownApp
            }
            let appID = try row.get("id", as: Int64.self)
            if let senderID {
                if let other = try db.scalar("""
                    SELECT app_key FROM apps WHERE account_id = ? AND sender_id = ? AND id <> ?
                    """, [.integer(try row.get("account_id", as: Int64.self)), .text(senderID), .integer(appID)], as: String.self),
                   let key = AppKey(other) {
                    return .takenBy(key)
                }
            }
            _ = try db.run("UPDATE apps SET sender_id = ? WHERE id = ?", [senderID.sqlValue, .integer(appID)])
            return .set
        }
    }
}
