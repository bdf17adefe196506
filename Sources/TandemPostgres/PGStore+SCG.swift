import Foundation
import TandemCore
import TandemStoreSupport

/// The SCG messaging API's storage on PostgreSQL, with SQLite's contract (`Store+SCG.swift`): bearer-token digests
/// (``SCGTokenStore``), its own messages (``SCGMessageStore``: `messages.api = 'scg'`, not hidden) and apps' sender ids
/// (``AppSenderIDStore``). Each write is one statement of one writer job; reads run on the reader pool.
extension PGStore: SCGTokenStore, SCGMessageStore, AppSenderIDStore {
    // MARK: Tokens

    /// A digest already stored fails with SQLSTATE 23505 (as SQLite's UNIQUE).
    public func insertSCGToken(account: ProductToken, digest: [UInt8], label: String,
                               createdAt: Timestamp) async throws(PGError) -> SCGTokenInfo? {
        let results = try await write([PGStatement("""
            INSERT INTO scg_tokens (account_id, token_sha256, label, created_at)
            SELECT id, $2, $3, $4 FROM accounts WHERE product_token = $1 RETURNING id
            """, [account.text, StoredHex.text(digest), label, String(createdAt.milliseconds)])])
        guard let id = results.first?.scalar.flatMap({ Int64($0) }) else { return nil }
        return SCGTokenInfo(id: id, account: account, label: label, createdAt: createdAt, revokedAt: nil)
    }

    public func scgTokens(account: ProductToken) async throws(PGError) -> [SCGTokenInfo]? {
        let rows = try await read { db throws(PGError) in
            try db.execute("""
                SELECT a.id, t.id, t.label, t.created_at, t.revoked_at
                FROM accounts a LEFT JOIN scg_tokens t ON t.account_id = a.id WHERE a.product_token = $1 ORDER BY t.id
                """, [account.text]).rows
        }
        guard !rows.isEmpty else { return nil }
        return rows.compactMap { row in
            guard let id = row[1].flatMap({ Int64($0) }) else { return nil }
            return SCGTokenInfo(id: id, account: account, label: row[2] ?? "",
                                createdAt: Timestamp(milliseconds: Int64(row[3] ?? "") ?? 0),
                                revokedAt: row[4].flatMap { Int64($0) }.map(Timestamp.init(milliseconds:)))
        }
    }

    public func revokeSCGToken(account: ProductToken, id: Int64, at: Timestamp) async throws(PGError) -> Bool {
        let results = try await write([PGStatement("""
            UPDATE scg_tokens SET revoked_at = $1
            WHERE id = $2 AND revoked_at IS NULL AND account_id = (SELECT id FROM accounts WHERE product_token = $3)
            """, [String(at.milliseconds), String(id), account.text])])
        return results.first?.changedRows == 1
    }

    /// The token's account in the same read (disabled or not: the caller refuses a disabled one).
    public func scgTokenGrant(digest: [UInt8]) async throws(PGError) -> SCGTokenGrant? {
        let result = try await read { db throws(PGError) in
            try db.execute("""
                SELECT a.name, a.product_token, a.created_at, a.disabled, a.sms_countries
                FROM scg_tokens t JOIN accounts a ON a.id = t.account_id
                WHERE t.token_sha256 = $1 AND t.revoked_at IS NULL
                """, [StoredHex.text(digest)])
        }
        guard let row = result.rows("account of an SCG token").first else { return nil }
        return SCGTokenGrant(digest: digest, account: try Self.account(row))
    }

    // MARK: Messages

    /// The account's SCG message (not hidden) with this id; nil when there is none.
    public func scgMessage(account: ProductToken, id: GUID) async throws(PGError) -> MessageView? {
        try await messageViews(where: "\(Self.scgShown) AND m.message_id = $2", id.text, account: account).first
    }

    /// The page and the total come from one snapshot (``inSnapshot(_:_:)``), as SQLite's read transaction.
    public func scgMessages(account: ProductToken, offset: Int, limit: Int) async throws(PGError) -> (messages: [MessageView], total: Int) {
        let (stored, total) = try await read { db throws(PGError) in
            try Self.inSnapshot(db) { () throws(PGError) in
                let total = Int(try db.execute("""
                    SELECT count(*) FROM messages m JOIN accounts a ON a.id = m.account_id
                    WHERE a.product_token = $1 AND \(Self.scgShown)
                    """, [account.text]).scalar ?? "") ?? 0
                let page = try db.execute("""
                    SELECT \(Self.messageColumns)
                    FROM messages m JOIN accounts a ON a.id = m.account_id LEFT JOIN apps p ON p.id = m.app_id
                    WHERE a.product_token = $1 AND \(Self.scgShown)
                    ORDER BY m.id DESC LIMIT $2 OFFSET $3
                    """, [account.text, String(max(0, limit)), String(max(0, offset))])
                return (try StoredMessages.read(page.rows, on: db), total)
            }
        }
        return (try await messageViews(stored).map(\.view), total)
    }

    /// The SCG API's own messages that it has not hidden (SQL over `messages m`).
    private static let scgShown = "m.api = 'scg' AND NOT m.hidden"

    public func hideSCGMessage(account: ProductToken, id: GUID) async throws(PGError) -> Bool {
        let results = try await write([PGStatement("""
            UPDATE messages SET hidden = true
            WHERE message_id = $1 AND api = 'scg' AND NOT hidden
              AND account_id = (SELECT id FROM accounts WHERE product_token = $2)
            """, [id.text, account.text])])
        return results.first?.changedRows == 1
    }

    // MARK: Sender ids

    /// One statement: the app, another app of its account with the same sender id (then nothing changes), the update.
    public func changeSenderID(app: AppKey, to senderID: String?) async throws(PGError) -> SenderIDChange {
        let results = try await write([PGStatement("""
            WITH app AS (SELECT id, account_id FROM apps WHERE app_key = $1),
                 other AS (SELECT o.app_key FROM apps o JOIN app ON o.account_id = app.account_id
                           WHERE o.sender_id = $2 AND o.id <> app.id LIMIT 1),
                 changed AS (UPDATE apps SET sender_id = $2 WHERE id = (SELECT id FROM app)
                             AND NOT EXISTS (SELECT 1 FROM other) RETURNING 1)
            SELECT EXISTS (SELECT 1 FROM app), (SELECT app_key FROM other), (SELECT count(*) FROM changed)
            """, [app.text, senderID])])
        guard let row = results.first?.rows.first, row[0] == "t" else { return .unknownApp }
        if let other = row[1] {
            guard let key = AppKey(other) else { throw .client("apps.app_key: not a GUID: \(other)") }
            return .takenBy(key)
        }
        return .set
    }
}
