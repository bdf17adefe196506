import Foundation
import TandemCore
import TandemStoreSupport

/// The gateway's reads on PostgreSQL (``SenderDirectory``, ``MessageLedger``), as SQLite's `Store+Gateway.swift`,
/// and the account settings it relies on. `cachedApp(key:)` keeps the protocol's default (nil: the device API's
/// signature check takes the asynchronous read); `rendersBWMIPushes(app:)` is BWMI's (`PGStore+BWMI.swift`).
extension PGStore: SenderDirectory, MessageLedger {
    /// Every registration of `app` for each number, in one statement: its installs with that verified number and,
    /// when the app sets `bwmi.trustPhones`, its BWMI devices claiming that phone (as PIN-verified installs).
    /// Rows with a malformed stored value fail the read rather than being skipped.
    public func registrations(app: AppKey, msisdns: [MSISDN]) async throws(PGError) -> [MSISDN: [Registration]] {
        guard !msisdns.isEmpty else { return [:] }
        let numbers = PGArray.literal(Set(msisdns).map { Optional($0.e164) })
        let result = try await read { db throws(PGError) in
            try db.execute("""
                WITH app AS (SELECT id FROM apps WHERE app_key = $1)
                SELECT r.device_id, r.msisdn, r.platform, r.push_token, r.status, r.notifications_enabled, r.apns_sandbox,
                       COALESCE(r.apns_topic, substr(r.application_id, 12))
                FROM registrations r WHERE r.app_id = (SELECT id FROM app) AND r.msisdn = ANY($2::text[])
                UNION ALL
                SELECT r.device_id, d.phone, r.platform, r.push_token,
                       CASE WHEN r.status = 'Invalid' THEN 'Invalid' ELSE 'PinVerified' END, r.notifications_enabled,
                       r.apns_sandbox, COALESCE(r.apns_topic, substr(r.application_id, 12))
                FROM bwmi_devices d JOIN registrations r ON r.id = d.registration_id
                WHERE d.app_id = (SELECT id FROM app) AND d.phone = ANY($2::text[])
                  AND EXISTS (SELECT 1 FROM bwmi_apps s WHERE s.app_id = (SELECT id FROM app) AND s.trust_phones)
                """, [app.text, numbers])
        }
        var found: [MSISDN: [Registration]] = [:]
        for row in result.rows("registration of app \(app)") {
            let text = try row.text(1)
            guard let msisdn = MSISDN(text) else { throw .client("registrations.msisdn: not an E.164 number: \(text)") }
            found[msisdn, default: []].append(try Self.routingRegistration(row, app: app))
        }
        return found
    }

    /// Sets (or, with a nil `url`, removes) the account's status-report webhook. False when no account has this
    /// product token.
    public func setWebhook(account: ProductToken, url: String?, format: WebhookFormat) async throws(PGError) -> Bool {
        try await write([PGStatement("UPDATE accounts SET webhook_url = $1, webhook_format = $2 WHERE product_token = $3",
                                     [url, format.rawValue, account.text])])[0].changedRows == 1
    }

    /// The account's message with this id; nil when it has none (another account's message included).
    public func message(account: ProductToken, id: GUID) async throws(PGError) -> MessageView? {
        try await messageViews(where: "m.message_id = $2", id.text, account: account).first
    }

    /// The account's messages with this `reference`, oldest first.
    public func messages(account: ProductToken, reference: String) async throws(PGError) -> [MessageView] {
        try await messageViews(where: "m.reference = $2", reference, account: account)
    }

    /// The account's messages matching `condition` (SQL over `messages m`, its value `$2`), oldest first.
    func messageViews(where condition: String, _ value: String, account: ProductToken) async throws(PGError) -> [MessageView] {
        let stored = try await read { db throws(PGError) in
            try Self.inSnapshot(db) { () throws(PGError) in
                let messages = try db.execute("""
                    SELECT \(Self.messageColumns)
                    FROM messages m JOIN accounts a ON a.id = m.account_id LEFT JOIN apps p ON p.id = m.app_id
                    WHERE a.product_token = $1 AND \(condition)
                    ORDER BY m.id
                    """, [account.text, value])
                return try StoredMessages.read(messages.rows, on: db)
            }
        }
        return try await messageViews(stored).map(\.view)
    }

    /// The columns of `messages m` (and `p.app_key`) that ``StoredMessages`` reads, in its order.
    static let messageColumns = """
        m.id, m.message_id, m.reference, m.sender, m.message_type, m.fallback_for, m.created_at, p.app_key, m.api, m.extra, m.body
        """

    /// Runs `body` in a read-only transaction with one snapshot for all of its statements.
    static func inSnapshot<T>(_ db: PGConnection, _ body: () throws(PGError) -> T) throws(PGError) -> T {
        try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let value = try body()
            try db.execute("COMMIT")
            return value
        } catch {
            if db.isUsable { _ = try? db.execute("ROLLBACK") }
            throw error
        }
    }

    /// The views of `stored`, in its order, each with its message's row (its columns after ``messageColumns``
    /// included). A snapshot naming a policy this process has not learned yet (written by another process) reloads
    /// the catalog once.
    func messageViews(_ stored: StoredMessages) async throws(PGError) -> [(view: MessageView, row: PGRow)] {
        do {
            return try stored.views(policies: policies)
        } catch let error as UnknownPolicyNumber {
            _ = error
            try await reloadPolicies()
        } catch let error as PGError {
            throw error
        } catch {
            throw .client("\(error)")
        }
        do {
            return try stored.views(policies: policies)
        } catch let error as PGError {
            throw error
        } catch {
            throw .client("\(error)")
        }
    }
}

/// Messages as read (``PGStore/messageColumns`` first, then any columns of the caller's), with their deliveries,
/// the deliveries' events and the spools' waiting numbers: read in a few statements whatever the number of
/// messages, decoded after the read. The one builder of ``MessageView``s on PostgreSQL: the ledger's reads, the SCG
/// API's and the message search.
struct StoredMessages: Sendable {
    var messages: [[String?]]
    /// By message row: `id, msisdn, snapshot, updated_at`, in key order.
    var deliveries: [Int64: [[String?]]] = [:]
    /// By delivery key: `at, kind, detail`, oldest first.
    var events: [Int64: [[String?]]] = [:]
    /// By message row: `recipients, total, started`.
    var spools: [Int64: [String?]] = [:]
    /// With `only`, just the deliveries to that number, and no queued numbers.
    var only: MSISDN?
    /// With a limit, at most that many deliveries per message and as many queued numbers.
    var recipientLimit: Int?

    /// Reads the deliveries, events and spools of `messages` on `db` (inside the caller's snapshot).
    static func read(_ messages: [[String?]], on db: PGConnection, only: MSISDN? = nil,
                     recipientLimit: Int? = nil) throws(PGError) -> StoredMessages {
        var stored = StoredMessages(messages: messages, only: only, recipientLimit: recipientLimit)
        let ids = messages.compactMap { $0[0] }
        guard !ids.isEmpty else { return stored }
        let idArray = PGArray.literal(ids.map { Optional($0) })
        var parameters: [String?] = [idArray, only?.e164]
        let limited = recipientLimit.map { limit in
            parameters.append(String(limit))
            return " AND n <= $3"
        } ?? ""
        let deliveries = try db.execute("""
            SELECT message_id, id, msisdn, snapshot, updated_at FROM (
                SELECT message_id, id, msisdn, snapshot, updated_at,
                       row_number() OVER (PARTITION BY message_id ORDER BY id) AS n
                FROM deliveries WHERE message_id = ANY($1::bigint[]) AND ($2::text IS NULL OR msisdn = $2)) d
            WHERE true\(limited)
            ORDER BY message_id, id
            """, parameters)
        var keys: [String?] = []
        for row in deliveries.rows {
            guard let message = row[0].flatMap({ Int64($0) }) else { continue }
            stored.deliveries[message, default: []].append(Array(row[1...]))
            keys.append(row[1])
        }
        if !keys.isEmpty {
            let events = try db.execute("""
                SELECT delivery_id, at, kind, detail FROM delivery_events WHERE delivery_id = ANY($1::bigint[]) ORDER BY delivery_id, id
                """, [PGArray.literal(keys)])
            for row in events.rows {
                guard let key = row[0].flatMap({ Int64($0) }) else { continue }
                stored.events[key, default: []].append(Array(row[1...]))
            }
        }
        if only == nil {
            let spools = try db.execute("SELECT message_id, recipients, total, started FROM message_spools WHERE message_id = ANY($1::bigint[])",
                                        [idArray])
            for row in spools.rows {
                guard let message = row[0].flatMap({ Int64($0) }) else { continue }
                stored.spools[message] = Array(row[1...])
            }
        }
        return stored
    }

    /// Decodes every message; throws ``UnknownPolicyNumber`` for a snapshot naming a policy `policies` does not know.
    func views(policies: PolicyCatalog) throws -> [(view: MessageView, row: PGRow)] {
        let decoder = policies.decoder()
        return try messages.map { values in
            let row = PGRow(values, "message")
            let messageRow = try row.int64(0)
            let idText = try row.text(1)
            guard let id = GUID(idText), let type = AppMessageType(wireName: try row.text(4)) else {
                throw PGError.client("messages: message \(idText) has a malformed stored value")
            }
            var recipients: [RecipientView] = []
            for delivery in deliveries[messageRow] ?? [] {
                let stored = PGRow(delivery, "delivery")
                let key = try stored.int64(0)
                guard let recipient = DeliveryRecipient(storedText: try stored.text(1)), let snapshot = stored.optional(2) else {
                    throw PGError.client("deliveries: delivery #\(key) has a malformed stored value")
                }
                let events = try (events[key] ?? []).map { (values) throws(PGError) in
                    let event = PGRow(values, "event of delivery #\(key)")
                    return TimelineEvent(at: Timestamp(milliseconds: try event.int64(0)), kind: try event.text(1),
                                         detail: event.optional(2) ?? "")
                }
                let delivery: Delivery
                if let fast = SnapshotReader.read(snapshot, policy: { policies.policy(numbered: $0) }) {
                    delivery = fast
                } else {
                    do {
                        delivery = try decoder.decode(Delivery.self, from: Data(snapshot.utf8))
                    } catch let error as UnknownPolicyNumber {
                        throw error
                    } catch {
                        throw PGError.client("snapshot of delivery #\(key): \(error)")
                    }
                }
                recipients.append(RecipientView(key: DeliveryKey(key), recipient: recipient, delivery: delivery,
                                                updatedAt: Timestamp(milliseconds: try stored.int64(3)), events: events))
            }
            var queued: [MSISDN] = []
            if only == nil, let spool = spools[messageRow] {
                let stored = PGRow(spool, "spool of message \(idText)")
                queued = try PGStore.spooledRecipients(try stored.text(0), total: Int(try stored.int64(1)),
                                                       from: Int(try stored.int64(2)), limit: recipientLimit, message: idText)
            }
            let view = MessageView(id: id, reference: row.optional(2), sender: try row.text(3), messageType: type,
                                   appKey: row.optional(7).flatMap(AppKey.init), fallbackFor: row.optional(5).flatMap(GUID.init),
                                   createdAt: Timestamp(milliseconds: try row.int64(6)), recipients: recipients, queued: queued,
                                   api: try row.text(8), extra: row.optional(9), body: try row.text(10))
            return (view, row)
        }
    }
}
