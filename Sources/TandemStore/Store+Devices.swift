import TandemCore

/// The device API's registry (``DeviceRegistry``): registrations with their PIN challenge, the receipt
/// lookup by `UpdateID`, and the app inbox.
extension Store: DeviceRegistry {
    private static let registrationColumns = """
        r.device_id, p.app_key, r.msisdn, r.platform, r.user_agent, r.push_token, r.status, r.notifications_enabled,
        r.pin_nonce, r.pin_msisdn, r.pin_issued_at, r.pin_expires_at, r.pin_attempts, r.pin_length, r.apns_sandbox,
        r.created_at, r.updated_at
        """

    /// From the registration cache when it holds it (see `RegistrationCache`), else read.
    public func registration(_ device: DeviceID) throws(StoreError) -> DeviceRegistration? {
        try registrations.registration(device) { (device) throws(StoreError) -> DeviceRegistration? in
            try read { (db: Connection) throws(StoreError) -> DeviceRegistration? in
                try Self.loadRegistration(device, on: db)
            }
        }
    }

    /// Always answered, synchronously (``registration(_:)``: the cache, else a page-cache read).
    public func cachedRegistration(_ device: DeviceID) throws(StoreError) -> DeviceRegistration?? {
        .some(try registration(device))
    }

    public func create(_ registration: DeviceRegistration) async throws(StoreError) {
        try await writeRegistration(registration.deviceID) { (db: Connection) throws(StoreError) -> ((), released: Bool) in
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(registration.app.text)],
                                            as: Int64.self) else {
                throw StoreError.decoding(column: "registrations.app_id", message: "no app has key \(registration.app)")
            }
            let released = try Self.releasePushToken(registration, on: db)
            try db.run("""
                INSERT INTO registrations (device_id, app_id, msisdn, platform, user_agent, push_token, status,
                    notifications_enabled, pin_nonce, pin_msisdn, pin_issued_at, pin_expires_at, pin_attempts, pin_length,
                    apns_sandbox, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(registration.deviceID.text), .integer(appID)] + Self.mutableBindings(registration)
                    + [.integer(registration.createdAt.milliseconds), .integer(registration.updatedAt.milliseconds)])
            return ((), released)
        }
    }

    public func update<T: Sendable>(
        _ device: DeviceID, _ change: @escaping @Sendable (inout DeviceRegistration) -> T
    ) async throws(StoreError) -> T? {
        try await writeRegistration(device) { (db: Connection) throws(StoreError) -> (T?, released: Bool) in
            guard var registration = try Self.loadRegistration(device, on: db) else { return (nil, false) }
            let result = change(&registration)
            let released = try Self.releasePushToken(registration, on: db)
            try db.run("""
                UPDATE registrations
                SET msisdn = ?, platform = ?, user_agent = ?, push_token = ?, status = ?, notifications_enabled = ?,
                    pin_nonce = ?, pin_msisdn = ?, pin_issued_at = ?, pin_expires_at = ?, pin_attempts = ?, pin_length = ?,
                    apns_sandbox = ?, updated_at = ?
                WHERE device_id = ?
                """, Self.mutableBindings(registration) + [.integer(registration.updatedAt.milliseconds), .text(device.text)])
            return (result, released)
        }
    }

    /// A write changing `device`'s registration — and others' too when it says it `released` a push token
    /// they held — followed, once committed (or failed), by the cache's invalidation.
    private func writeRegistration<T: Sendable>(
        _ device: DeviceID, _ body: @escaping @Sendable (Connection) throws(StoreError) -> (T, released: Bool)
    ) async throws(StoreError) -> T {
        let outcome: (T, released: Bool)
        do {
            outcome = try await write(body)
        } catch {
            registrations.invalidate([device])
            throw error
        }
        if outcome.released { registrations.invalidateAll() } else { registrations.invalidate([device]) }
        return outcome.0
    }

    /// The delivery with this key (its `UpdateID`) as a receipt for it is checked: its message's app and
    /// recipient, whether it is final and when it was accepted; nil when there is none.
    public func receiptTarget(_ key: DeliveryKey) throws(StoreError) -> ReceiptTarget? {
        try read { (db: Connection) throws(StoreError) -> ReceiptTarget? in
            guard let row = try db.queryFirst("""
                SELECT d.msisdn AS target_msisdn, d.final AS target_final, m.created_at AS target_created_at,
                       p.app_key AS target_app_key
                FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN apps p ON p.id = m.app_id
                WHERE d.id = ?
                """, [.integer(key.rawValue)]) else { return nil }
            return try Self.target(key, row)
        }
    }

    private static func target(_ key: DeliveryKey, _ row: Row) throws(StoreError) -> ReceiptTarget? {
        guard let msisdnText = try row.get("target_msisdn", as: String?.self) else { return nil }
        guard let recipient = DeliveryRecipient(storedText: msisdnText) else {
            throw .decoding(column: "deliveries.msisdn", message: "delivery \(key): neither a number nor a device: \(msisdnText)")
        }
        return ReceiptTarget(key: key, app: try row.get("target_app_key", as: String?.self).flatMap(AppKey.init),
                             recipient: recipient,
                             isFinal: try row.get("target_final", as: Bool.self),
                             createdAt: Timestamp(milliseconds: try row.get("target_created_at", as: Int64.self)))
    }

    /// The inbox relation: one row per delivery the router pushed to `msisdn` for `app`, with the columns the
    /// OData translation names (``inboxColumns``). `status` is the app-facing one: `Read` shows as `Delivered`,
    /// a withdrawn OTP as `Cancelled` (its body then hidden).
    private static let inboxSource = """
        (SELECT m.message_id AS id, d.id AS update_id, m.sender AS sender, m.created_at AS date_time,
                CASE WHEN m.message_type = 'OTP' AND d.push_withdrawn = 1 THEN 'Cancelled'
                     WHEN d.status = 'Read' THEN 'Delivered' ELSE d.status END AS status,
                CASE WHEN m.message_type = 'OTP' AND d.push_withdrawn = 1 THEN NULL ELSE m.body END AS body
         FROM deliveries d JOIN messages m ON m.id = d.message_id
         WHERE d.msisdn = ? AND d.pushed = 1 AND m.app_id = (SELECT id FROM apps WHERE app_key = ?)) t
        """
    private static let inboxColumns = ODataSQLColumns(id: "t.id", updateID: "t.update_id", sender: "t.sender",
                                                      dateTime: "t.date_time", status: "t.status")

    public func inbox(app: AppKey, msisdn: MSISDN, query: ODataQuery) throws(StoreError) -> [InboxMessage] {
        let (sql, values) = ODataSQL.translate(query, columns: Self.inboxColumns)
            .statement(selecting: "t.id, t.update_id, t.sender, t.body, t.date_time, t.status", from: Self.inboxSource)
        let bindings: [SQLValue] = [.text(msisdn.e164), .text(app.text)] + values.map { value in
            switch value {
            case .integer(let number): .integer(number)
            case .text(let text): .text(text)
            }
        }
        return try read { (db: Connection) throws(StoreError) -> [InboxMessage] in
            try db.query(sql, bindings).map { (row) throws(StoreError) -> InboxMessage in
                let idText = try row.get("id", as: String.self)
                let statusText = try row.get("status", as: String.self)
                guard let id = GUID(idText), let status = DeliveryStatus(wireName: statusText) else {
                    throw .decoding(column: "inbox", message: "message \(idText) has a malformed stored value")
                }
                return InboxMessage(id: id, updateID: DeliveryKey(try row.get("update_id", as: Int64.self)), recipient: msisdn,
                                    sender: try row.get("sender", as: String.self), body: try row.get("body", as: String?.self),
                                    dateTime: Timestamp(milliseconds: try row.get("date_time", as: Int64.self)), status: status)
            }
        }
    }

    // MARK: Rows

    private static func loadRegistration(_ device: DeviceID, on db: Connection) throws(StoreError) -> DeviceRegistration? {
        guard let row = try db.queryFirst("""
            SELECT \(registrationColumns) FROM registrations r JOIN apps p ON p.id = r.app_id WHERE r.device_id = ?
            """, [.text(device.text)]) else { return nil }
        return try registration(row)
    }

    private static func registration(_ row: Row) throws(StoreError) -> DeviceRegistration {
        let deviceText = try row.get("device_id", as: String.self)
        var malformed: StoreError {
            .decoding(column: "registrations", message: "registration \(deviceText) has a malformed stored value")
        }
        guard let device = DeviceID(deviceText), let app = AppKey(try row.get("app_key", as: String.self)),
              let platform = Platform(wireName: try row.get("platform", as: String.self)),
              let status = RegistrationStatus(wireName: try row.get("status", as: String.self)) else { throw malformed }
        var msisdn: MSISDN?
        if let text = try row.get("msisdn", as: String?.self) {
            guard let number = MSISDN(text) else { throw malformed }
            msisdn = number
        }
        var challenge: PinChallenge?
        if let nonce = try row.get("pin_nonce", as: String?.self) {
            guard let text = try row.get("pin_msisdn", as: String?.self), let number = MSISDN(text),
                  let issued = try row.get("pin_issued_at", as: Int64?.self),
                  let expires = try row.get("pin_expires_at", as: Int64?.self) else { throw malformed }
            challenge = PinChallenge(nonce: nonce, msisdn: number, issuedAt: Timestamp(milliseconds: issued),
                                     expiresAt: Timestamp(milliseconds: expires),
                                     attempts: Int(try row.get("pin_attempts", as: Int64.self)),
                                     pinLength: try row.get("pin_length", as: Int64?.self).map { Int($0) })
        }
        let token = try row.get("push_token", as: String?.self)
        return DeviceRegistration(
            deviceID: device, app: app, platform: platform, userAgent: try row.get("user_agent", as: String.self),
            pushToken: token.flatMap(PushToken.init), notificationsEnabled: try row.get("notifications_enabled", as: Bool.self),
            verification: Verification(status: status, msisdn: msisdn, challenge: challenge),
            createdAt: Timestamp(milliseconds: try row.get("created_at", as: Int64.self)),
            updatedAt: Timestamp(milliseconds: try row.get("updated_at", as: Int64.self)),
            apnsSandbox: try row.get("apns_sandbox", as: Bool?.self))
    }

    /// msisdn, platform, user_agent, push_token, status, notifications_enabled, pin_nonce, pin_msisdn,
    /// pin_issued_at, pin_expires_at, pin_attempts, pin_length, apns_sandbox — in that order.
    private static func mutableBindings(_ registration: DeviceRegistration) -> [SQLValue] {
        let challenge = registration.verification.challenge
        return [registration.msisdn?.e164.sqlValue ?? .null, .text(registration.platform.wireName),
                .text(registration.userAgent), registration.pushToken?.text.sqlValue ?? .null,
                .text(registration.status.wireName), registration.notificationsEnabled.sqlValue,
                challenge?.nonce.sqlValue ?? .null, challenge?.msisdn.e164.sqlValue ?? .null,
                challenge?.issuedAt.milliseconds.sqlValue ?? .null, challenge?.expiresAt.milliseconds.sqlValue ?? .null,
                .integer(Int64(challenge?.attempts ?? 0)), (challenge?.pinLength).map { SQLValue.integer(Int64($0)) } ?? .null,
                registration.apnsSandbox?.sqlValue ?? .null]
    }

    /// A push token addresses one install: another registration of the same app holding it loses it.
    /// Returns whether one did.
    private static func releasePushToken(_ registration: DeviceRegistration, on db: Connection) throws(StoreError) -> Bool {
        guard let token = registration.pushToken else { return false }
        return try db.run("""
            UPDATE registrations SET push_token = NULL, updated_at = ?
            WHERE app_id = (SELECT id FROM apps WHERE app_key = ?) AND push_token = ? AND device_id <> ?
            """, [.integer(registration.updatedAt.milliseconds), .text(registration.app.text), .text(token.text),
                  .text(registration.deviceID.text)]) > 0
    }
}
