import Foundation
import TandemCore
import TandemStoreSupport

/// The gateway's reads (``SenderDirectory``, ``MessageLedger``) and the account settings it relies on.
extension Store: SenderDirectory, MessageLedger {
    /// Every registration of `app` for each number, in one read: its installs with that verified number and,
    /// when the app sets `bwmi.trustPhones`, its BWMI devices claiming that phone (as PIN-verified installs). Rows with a malformed stored value fail
    /// the read with `.decoding` rather than being skipped.
    public func registrations(app: AppKey, msisdns: [MSISDN]) throws(StoreError) -> [MSISDN: [Registration]] {
        guard !msisdns.isEmpty else { return [:] }
        return try read { (db: Connection) throws(StoreError) -> [MSISDN: [Registration]] in
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(app.text)], as: Int64.self) else {
                return [:]
            }
            // One query for every number: the numbers travel as one JSON array bound to `json_each`.
            let numbers = "[" + Set(msisdns).map { "\"\($0.e164)\"" }.joined(separator: ",") + "]"
            // BWMI devices count as verified installs of the phone they claim only for an app that trusts them.
            let rows = try db.query("""
                SELECT device_id, msisdn, platform, push_token, status, notifications_enabled, apns_sandbox,
                       COALESCE(apns_topic, substr(application_id, 12)) AS apns_topic
                FROM registrations WHERE app_id = ? AND msisdn IN (SELECT value FROM json_each(?))
                UNION ALL
                SELECT r.device_id, d.phone AS msisdn, r.platform, r.push_token,
                       CASE WHEN r.status = 'Invalid' THEN 'Invalid' ELSE 'PinVerified' END AS status, r.notifications_enabled,
                       r.apns_sandbox, COALESCE(r.apns_topic, substr(r.application_id, 12)) AS apns_topic
                FROM bwmi_devices d JOIN registrations r ON r.id = d.registration_id
                WHERE d.app_id = ? AND d.phone IN (SELECT value FROM json_each(?))
                  AND EXISTS (SELECT 1 FROM bwmi_apps s WHERE s.app_id = ? AND s.trust_phones = 1)
                """, [.integer(appID), .text(numbers), .integer(appID), .text(numbers), .integer(appID)])
            var found: [MSISDN: [Registration]] = [:]
            for row in rows {
                let text = try row.get("msisdn", as: String.self)
                guard let msisdn = MSISDN(text) else {
                    throw .decoding(column: "registrations.msisdn", message: "not an E.164 number: \(text)")
                }
                found[msisdn, default: []].append(try Self.routingRegistration(row, app: app))
            }
            return found
        }
    }

    /// Deletes idempotency keys created before `cutoff`; returns how many.
    @discardableResult
    public func purgeIdempotencyKeys(createdBefore cutoff: Timestamp) async throws(StoreError) -> Int {
        try await write { (db: Connection) throws(StoreError) -> Int in
            try db.run("DELETE FROM idempotency_keys WHERE created_at < ?", [.integer(cutoff.milliseconds)])
        }
    }

    /// Sets (or, with a nil `url`, removes) the account's status-report webhook. False when no account
    /// has this product token.
    public func setWebhook(account: ProductToken, url: String?, format: WebhookFormat) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("UPDATE accounts SET webhook_url = ?, webhook_format = ? WHERE product_token = ?",
                       [url.sqlValue, .text(format.rawValue), .text(account.text)]) == 1
        }
    }

    public func message(account: ProductToken, id: GUID) throws(StoreError) -> MessageView? {
        try messageViews(where: "m.message_id = ?", [.text(id.text)], account: account).first
    }

    public func messages(account: ProductToken, reference: String) throws(StoreError) -> [MessageView] {
        try messageViews(where: "m.reference = ?", [.text(reference)], account: account)
    }

    /// The account's messages matching `condition` (SQL over `messages m`), oldest first.
    func messageViews(where condition: String, _ bindings: [SQLValue],
                              account: ProductToken) throws(StoreError) -> [MessageView] {
        try readSnapshot { (db: Connection) throws(StoreError) -> [MessageView] in
            guard let accountID = try db.scalar("SELECT id FROM accounts WHERE product_token = ?", [.text(account.text)],
                                                as: Int64.self) else { return [] }
            let messages = try db.query("""
                SELECT m.id, m.message_id, m.reference, m.sender, m.message_type, m.fallback_for, m.created_at, p.app_key,
                       m.api, m.extra, m.body
                FROM messages m LEFT JOIN apps p ON p.id = m.app_id
                WHERE m.account_id = ? AND \(condition)
                ORDER BY m.id
                """, [.integer(accountID)] + bindings)
            let decoder = policies.decoder()
            return try messages.map { (row) throws(StoreError) -> MessageView in
                try Self.messageView(row, on: db, policies: policies, decoder: decoder)
            }
        }
    }

    /// The message of `row` (`m.*` columns and `p.app_key`, as ``messageViews(where:_:account:)`` selects them;
    /// also the SCG reads' and the message search's) with its recipients: every one, or with `only` just those
    /// at that number (and no queued ones); with `recipientLimit`, at most that many deliveries and as many
    /// queued numbers.
    static func messageView(_ row: Row, on db: Connection, policies: PolicyCatalog, decoder: JSONDecoder,
                            only: MSISDN? = nil, recipientLimit: Int? = nil) throws(StoreError) -> MessageView {
        let idText = try row.get("message_id", as: String.self)
        guard let id = GUID(idText),
              let type = AppMessageType(wireName: try row.get("message_type", as: String.self)) else {
            throw .decoding(column: "messages", message: "message \(idText) has a malformed stored value")
        }
        var bindings: [SQLValue] = [.integer(try row.get("id", as: Int64.self))]
        if let only { bindings.append(.text(only.e164)) }
        if let recipientLimit { bindings.append(.integer(Int64(recipientLimit))) }
        let deliveries = try db.query("""
            SELECT id, msisdn, snapshot, updated_at FROM deliveries WHERE message_id = ?\(only == nil ? "" : " AND msisdn = ?")
            ORDER BY id\(recipientLimit == nil ? "" : " LIMIT ?")
            """, bindings)
        var recipients: [RecipientView] = []
        for delivery in deliveries {
            let key = try delivery.get("id", as: Int64.self)
            guard let recipient = DeliveryRecipient(storedText: try delivery.get("msisdn", as: String.self)),
                  let snapshot = try delivery.get("snapshot", as: String?.self) else {
                throw .decoding(column: "deliveries", message: "delivery #\(key) has a malformed stored value")
            }
            let events = try db.query("SELECT at, kind, detail FROM delivery_events WHERE delivery_id = ? ORDER BY id",
                                      [.integer(key)]).map { (event) throws(StoreError) in
                TimelineEvent(at: Timestamp(milliseconds: try event.get("at", as: Int64.self)),
                              kind: try event.get("kind", as: String.self),
                              detail: try event.get("detail", as: String?.self) ?? "")
            }
            recipients.append(RecipientView(key: DeliveryKey(key), recipient: recipient,
                                            delivery: try policies.decode(snapshot, key: key, with: decoder, on: db),
                                            updatedAt: Timestamp(milliseconds: try delivery.get("updated_at", as: Int64.self)),
                                            events: events))
        }
        var queued: [MSISDN] = []
        if only == nil, let spool = try db.queryFirst("SELECT recipients, total, started FROM message_spools WHERE message_id = ?",
                                         [.integer(try row.get("id", as: Int64.self))]) {
            queued = try spooledRecipients(try spool.get("recipients", as: String.self),
                                           total: Int(try spool.get("total", as: Int64.self)),
                                           from: Int(try spool.get("started", as: Int64.self)), limit: recipientLimit, message: idText)
        }
        return MessageView(id: id, reference: try row.get("reference", as: String?.self),
                           sender: try row.get("sender", as: String.self), messageType: type,
                           appKey: try row.get("app_key", as: String?.self).flatMap(AppKey.init),
                           fallbackFor: try row.get("fallback_for", as: String?.self).flatMap(GUID.init),
                           createdAt: Timestamp(milliseconds: try row.get("created_at", as: Int64.self)),
                           recipients: recipients, queued: queued, api: try row.get("api", as: String.self),
                           extra: try row.get("extra", as: String?.self), body: try row.get("body", as: String.self))
    }
}
