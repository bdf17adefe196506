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
            """, [account.text, SCGHex.text(digest), label, String(createdAt.milliseconds)])])
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
        let row = try await read { db throws(PGError) in
            try db.execute("""
                SELECT a.product_token, a.name, a.created_at, a.disabled, a.sms_countries
                FROM scg_tokens t JOIN accounts a ON a.id = t.account_id
                WHERE t.token_sha256 = $1 AND t.revoked_at IS NULL
                """, [SCGHex.text(digest)]).rows.first
        }
        guard let row else { return nil }
        guard let token = row[0].flatMap(ProductToken.init) else {
            throw .client("accounts.product_token: not a GUID: \(row[0] ?? "NULL")")
        }
        let countries: SMSCountryPolicy
        if let text = row[4] {
            do {
                countries = try JSONDecoder().decode(SMSCountryPolicy.self, from: Data(text.utf8))
            } catch {
                throw .client("accounts.sms_countries: \(error)")
            }
        } else {
            countries = SMSCountryPolicy()
        }
        let account = Account(name: row[1] ?? "", productToken: token, createdAt: Int64(row[2] ?? "") ?? 0,
                              disabled: row[3] == "t", smsCountries: countries)
        return SCGTokenGrant(digest: digest, account: account)
    }

    // MARK: Messages

    public func scgMessage(account: ProductToken, id: GUID) async throws(PGError) -> MessageView? {
        let policies = self.policies
        return try await read { db throws(PGError) in
            let rows = try db.execute(SCGMessageViews.select + " AND m.message_id = $2",
                                      [account.text, id.text]).rows
            return try SCGMessageViews.views(rows, on: db, policies: policies).first
        }
    }

    /// The page and the total come from one transaction (`REPEATABLE READ`), as SQLite's read snapshot.
    public func scgMessages(account: ProductToken, offset: Int, limit: Int) async throws(PGError) -> (messages: [MessageView], total: Int) {
        let policies = self.policies
        return try await read { db throws(PGError) in
            try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do throws(PGError) {
                let total = Int(try db.execute("""
                    SELECT count(*) FROM messages m JOIN accounts a ON a.id = m.account_id
                    WHERE a.product_token = $1 AND m.api = 'scg' AND NOT m.hidden
                    """, [account.text]).scalar ?? "") ?? 0
                let rows = try db.execute(SCGMessageViews.select + " ORDER BY m.id DESC LIMIT $2 OFFSET $3",
                                          [account.text, String(max(0, limit)), String(max(0, offset))]).rows
                let views = try SCGMessageViews.views(rows, on: db, policies: policies)
                try db.execute("COMMIT")
                return (views, total)
            } catch {
                _ = try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

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

/// Lower-case hex of a digest, as `scg_tokens.token_sha256` holds it.
private enum SCGHex {
    static func text(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// SCG messages as ``MessageView``s (SQLite's `Store.messageView`), in four reads whatever their number: the messages,
/// their deliveries, the deliveries' events, their spools. (Part 1's gateway reads build the same views; the two are
/// to be merged into one helper.)
private enum SCGMessageViews {
    /// `$1`: the account's product token.
    static let select = """
        SELECT m.id, m.message_id, m.reference, m.sender, m.message_type, m.fallback_for, m.created_at, p.app_key,
               m.api, m.extra, m.body
        FROM messages m JOIN accounts a ON a.id = m.account_id LEFT JOIN apps p ON p.id = m.app_id
        WHERE a.product_token = $1 AND m.api = 'scg' AND NOT m.hidden
        """

    static func views(_ rows: [[String?]], on db: PGConnection, policies: PolicyCatalog) throws(PGError) -> [MessageView] {
        guard !rows.isEmpty else { return [] }
        let ids = rows.map { $0[0] }
        let deliveries = try db.execute("""
            SELECT id, message_id, msisdn, snapshot, updated_at FROM deliveries WHERE message_id = ANY($1::bigint[])
            ORDER BY message_id, id
            """, [PGArray.literal(ids)]).rows
        let events = try db.execute("""
            SELECT delivery_id, at, kind, detail FROM delivery_events
            WHERE delivery_id IN (SELECT id FROM deliveries WHERE message_id = ANY($1::bigint[]))
            ORDER BY delivery_id, id
            """, [PGArray.literal(ids)]).rows
        let spools = try db.execute("SELECT message_id, recipients, total, started FROM message_spools WHERE message_id = ANY($1::bigint[])",
                                    [PGArray.literal(ids)]).rows
        var timelines: [String: [TimelineEvent]] = [:]
        for event in events {
            timelines[event[0] ?? "", default: []].append(TimelineEvent(at: Timestamp(milliseconds: Int64(event[1] ?? "") ?? 0),
                                                                        kind: event[2] ?? "", detail: event[3] ?? ""))
        }
        let decoder = policies.decoder()
        var reloaded = false
        var recipients: [String: [RecipientView]] = [:]
        for delivery in deliveries {
            let key = Int64(delivery[0] ?? "") ?? 0
            guard let recipient = DeliveryRecipient(storedText: delivery[2] ?? ""), let snapshot = delivery[3] else {
                throw .client("delivery #\(key) has a malformed stored value")
            }
            let decoded: Delivery
            do {
                decoded = try decode(snapshot, key: key, policies: policies, decoder: decoder)
            } catch is UnknownPolicyNumber where !reloaded {
                // A policy another process committed: learn the table, decode again.
                reloaded = true
                try learnPolicies(on: db, into: policies)
                decoded = try decodeOrFail(snapshot, key: key, policies: policies, decoder: decoder)
            } catch {
                throw .client("delivery #\(key): \(error)")
            }
            recipients[delivery[1] ?? "", default: []].append(
                RecipientView(key: DeliveryKey(key), recipient: recipient, delivery: decoded,
                              updatedAt: Timestamp(milliseconds: Int64(delivery[4] ?? "") ?? 0),
                              events: timelines[delivery[0] ?? ""] ?? []))
        }
        var queued: [String: [MSISDN]] = [:]
        for spool in spools {
            queued[spool[0] ?? ""] = try spooled(spool[1] ?? "", total: Int(spool[2] ?? "") ?? 0, from: Int(spool[3] ?? "") ?? 0,
                                                 message: spool[0] ?? "")
        }
        return try rows.map { (row) throws(PGError) -> MessageView in
            let idText = row[1] ?? ""
            guard let id = GUID(idText), let type = AppMessageType(wireName: row[4] ?? "") else {
                throw .client("message \(idText) has a malformed stored value")
            }
            return MessageView(id: id, reference: row[2], sender: row[3] ?? "", messageType: type,
                               appKey: row[7].flatMap(AppKey.init), fallbackFor: row[5].flatMap(GUID.init),
                               createdAt: Timestamp(milliseconds: Int64(row[6] ?? "") ?? 0),
                               recipients: recipients[row[0] ?? ""] ?? [], queued: queued[row[0] ?? ""] ?? [],
                               api: row[8] ?? "cm", extra: row[9], body: row[10] ?? "")
        }
    }

    private static func decode(_ snapshot: String, key: Int64, policies: PolicyCatalog, decoder: JSONDecoder) throws -> Delivery {
        if let fast = SnapshotReader.read(snapshot, policy: { policies.policy(numbered: $0) }) { return fast }
        return try decoder.decode(Delivery.self, from: Data(snapshot.utf8))
    }

    private static func decodeOrFail(_ snapshot: String, key: Int64, policies: PolicyCatalog,
                                     decoder: JSONDecoder) throws(PGError) -> Delivery {
        do {
            return try decode(snapshot, key: key, policies: policies, decoder: decoder)
        } catch {
            throw .client("delivery #\(key): \(error)")
        }
    }

    private static func learnPolicies(on db: PGConnection, into policies: PolicyCatalog) throws(PGError) {
        let decoder = JSONDecoder()
        var numbered: [(policy: Policy, number: Int64)] = []
        for row in try db.execute("SELECT id, body FROM policies ORDER BY id").rows {
            guard let id = row[0].flatMap({ Int64($0) }), let body = row[1] else { continue }
            do {
                numbered.append((try decoder.decode(Policy.self, from: Data(body.utf8)), id))
            } catch {
                throw .client("policies row \(id) does not decode: \(error)")
            }
        }
        policies.learn(numbered)
    }

    /// The numbers of a spool not started yet (SQLite's `Store.spooledRecipients`).
    private static func spooled(_ list: String, total: Int, from: Int, message: String) throws(PGError) -> [MSISDN] {
        let fields = list.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard fields.count == total, from >= 0, from <= total else {
            throw .client("message_spools.recipients: message row \(message): \(fields.count) numbers stored for a spool of \(total)")
        }
        var recipients: [MSISDN] = []
        recipients.reserveCapacity(total - from)
        for field in fields[from..<total] {
            guard let text = String(field), let msisdn = MSISDN(text) else {
                throw .client("message_spools.recipients: message row \(message): a malformed number")
            }
            recipients.append(msisdn)
        }
        return recipients
    }
}
