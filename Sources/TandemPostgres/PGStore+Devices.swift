import TandemCore

/// The device API's registry on PostgreSQL, as SQLite's `Store+Devices.swift`: registrations with their PIN
/// challenge, the receipt lookup by `UpdateID`, and the app inbox (the typed OData query translated by
/// ``PGInboxSQL``).
///
/// No registration cache: every lookup reads the server (SQLite's `RegistrationCache` relies on every write being
/// this process's, which several nodes on one database would break), and `cachedRegistration(_:)` keeps the
/// protocol's default (nil: a receipt's check takes the asynchronous read, in a task).
///
/// ``update(_:_:)`` reads the registration, lets `change` modify it, and writes it back only if the row still
/// holds what was read (compared whole), having locked it first; when another write came between, it reads again
/// and runs `change` again (it is pure). A push token taken by a registration moves to it: the registration of the
/// same app that held it loses it, in the same transaction.
extension PGStore: DeviceRegistry {
    private static let registrationColumns = """
        r.device_id, p.app_key, r.msisdn, r.platform, r.user_agent, r.push_token, r.status, r.notifications_enabled,
        r.pin_nonce, r.pin_msisdn, r.pin_issued_at, r.pin_expires_at, r.pin_attempts, r.pin_length, r.apns_sandbox,
        r.created_at, r.updated_at, r::text
        """

    /// The registration with this device id; nil when there is none.
    public func registration(_ device: DeviceID) async throws(PGError) -> DeviceRegistration? {
        try await loadRegistration(device)?.registration
    }

    /// Stores a new registration (its app must exist: else SQLSTATE 23503; a device id already registered: 23505).
    public func create(_ registration: DeviceRegistration) async throws(PGError) {
        _ = try await write([
            .appMustExist(registration.app),
            Self.releasePushToken(registration),
            PGStatement("""
                INSERT INTO registrations (device_id, app_id, msisdn, platform, user_agent, push_token, status,
                    notifications_enabled, pin_nonce, pin_msisdn, pin_issued_at, pin_expires_at, pin_attempts, pin_length,
                    apns_sandbox, created_at, updated_at)
                SELECT $1, id, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17 FROM apps WHERE app_key = $2
                """, [registration.deviceID.text, registration.app.text] + Self.mutableParameters(registration)
                    + [registration.createdAt.pgText, registration.updatedAt.pgText]),
        ].compactMap { $0 })
    }

    public func update<T: Sendable>(_ device: DeviceID,
                                    _ change: @escaping @Sendable (inout DeviceRegistration) -> T) async throws(PGError) -> T? {
        for _ in 0..<Self.rereadLimit {
            guard let (original, whole) = try await loadRegistration(device) else { return nil }
            var registration = original
            let result = change(&registration)
            let guardCondition = "device_id = $1 AND registrations::text = $2"
            let results = try await write([
                // Locks the row: nothing changes it between the check below and the update.
                PGStatement("SELECT 1 FROM registrations WHERE device_id = $1 FOR UPDATE", [device.text]),
                Self.releasePushToken(registration, unchanged: whole),
                PGStatement("""
                    UPDATE registrations
                    SET msisdn = $3, platform = $4, user_agent = $5, push_token = $6, status = $7, notifications_enabled = $8,
                        pin_nonce = $9, pin_msisdn = $10, pin_issued_at = $11, pin_expires_at = $12, pin_attempts = $13,
                        pin_length = $14, apns_sandbox = $15, updated_at = $16
                    WHERE \(guardCondition)
                    """, [device.text, whole] + Self.mutableParameters(registration) + [registration.updatedAt.pgText]),
            ].compactMap { $0 })
            if results[results.count - 1].changedRows == 1 { return result }
            // Changed (or deleted) since it was read: read it again.
        }
        throw .notApplied("registration \(device) changed under every one of \(Self.rereadLimit) attempts to update it")
    }

    /// How many times a read-change-write reads again because another write came between, before it gives up
    /// (never reached but by a row that keeps changing).
    static let rereadLimit = 64

    /// The delivery with this key (its `UpdateID`) as a receipt for it is checked: its message's app and recipient,
    /// whether it is final and when it was accepted; nil when there is none.
    public func receiptTarget(_ key: DeliveryKey) async throws(PGError) -> ReceiptTarget? {
        let result = try await read { db throws(PGError) in
            try db.execute("""
                SELECT d.msisdn, d.final, m.created_at, p.app_key
                FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN apps p ON p.id = m.app_id
                WHERE d.id = $1
                """, [key.rawValue.pgText])
        }
        guard let row = result.rows("delivery \(key)").first else { return nil }
        let text = try row.text(0)
        guard let recipient = DeliveryRecipient(storedText: text) else {
            throw .client("deliveries.msisdn: delivery \(key): neither a number nor a device: \(text)")
        }
        return ReceiptTarget(key: key, app: row.optional(3).flatMap(AppKey.init), recipient: recipient, isFinal: try row.bool(1),
                             createdAt: Timestamp(milliseconds: try row.int64(2)))
    }

    /// The inbox relation: one row per delivery the router pushed to `$1` for the app `$2`. `status` is the
    /// app-facing one: `Read` shows as `Delivered`, a withdrawn OTP as `Cancelled` (its body then hidden).
    private static let inboxSource = """
        (SELECT m.message_id AS id, d.id AS update_id, m.sender AS sender, m.created_at AS date_time,
                CASE WHEN m.message_type = 'OTP' AND d.push_withdrawn THEN 'Cancelled'
                     WHEN d.status = 'Read' THEN 'Delivered' ELSE d.status END AS status,
                CASE WHEN m.message_type = 'OTP' AND d.push_withdrawn THEN NULL ELSE m.body END AS body
         FROM deliveries d JOIN messages m ON m.id = d.message_id
         WHERE d.msisdn = $1 AND d.pushed AND m.app_id = (SELECT id FROM apps WHERE app_key = $2)) t
        """
    private static let inboxColumns = PGInboxSQL.Columns(id: "t.id", updateID: "t.update_id", sender: "t.sender",
                                                         dateTime: "t.date_time", status: "t.status")

    /// The messages pushed to `msisdn` for `app`, filtered, ordered and paged by `query` as ``ODataQuery/apply(to:)``.
    public func inbox(app: AppKey, msisdn: MSISDN, query: ODataQuery) async throws(PGError) -> [InboxMessage] {
        let (sql, parameters) = PGInboxSQL.statement(query, columns: Self.inboxColumns,
                                                     selecting: "t.id, t.update_id, t.sender, t.body, t.date_time, t.status",
                                                     from: Self.inboxSource, firstParameter: 3)
        let result = try await read { db throws(PGError) in try db.execute(sql, [msisdn.e164, app.text] + parameters) }
        return try result.rows("inbox").map { (row) throws(PGError) -> InboxMessage in
            let idText = try row.text(0)
            guard let id = GUID(idText), let status = DeliveryStatus(wireName: try row.text(5)) else {
                throw .client("inbox: message \(idText) has a malformed stored value")
            }
            return InboxMessage(id: id, updateID: DeliveryKey(try row.int64(1)), recipient: msisdn, sender: try row.text(2),
                                body: row.optional(3), dateTime: Timestamp(milliseconds: try row.int64(4)), status: status)
        }
    }

    // MARK: Rows

    /// The registration and its row's whole text (what ``update(_:_:)`` compares before writing).
    private func loadRegistration(_ device: DeviceID) async throws(PGError) -> (registration: DeviceRegistration, whole: String)? {
        let result = try await read { db throws(PGError) in
            try db.execute("""
                SELECT \(Self.registrationColumns) FROM registrations r JOIN apps p ON p.id = r.app_id WHERE r.device_id = $1
                """, [device.text])
        }
        guard let row = result.rows("registration \(device)").first else { return nil }
        return (try Self.registration(row), try row.text(17))
    }

    private static func registration(_ row: PGRow) throws(PGError) -> DeviceRegistration {
        let deviceText = try row.text(0)
        let malformed = PGError.client("registrations: registration \(deviceText) has a malformed stored value")
        guard let device = DeviceID(deviceText), let app = AppKey(try row.text(1)), let platform = Platform(wireName: try row.text(3)),
              let status = RegistrationStatus(wireName: try row.text(6)) else { throw malformed }
        var msisdn: MSISDN?
        if let text = row.optional(2) {
            guard let number = MSISDN(text) else { throw malformed }
            msisdn = number
        }
        var challenge: PinChallenge?
        if let nonce = row.optional(8) {
            guard let text = row.optional(9), let number = MSISDN(text), let issued = try row.optionalInt64(10),
                  let expires = try row.optionalInt64(11) else { throw malformed }
            challenge = PinChallenge(nonce: nonce, msisdn: number, issuedAt: Timestamp(milliseconds: issued),
                                     expiresAt: Timestamp(milliseconds: expires), attempts: Int(try row.int64(12)),
                                     pinLength: try row.optionalInt64(13).map { Int($0) })
        }
        return DeviceRegistration(
            deviceID: device, app: app, platform: platform, userAgent: try row.text(4),
            pushToken: row.optional(5).flatMap(PushToken.init), notificationsEnabled: try row.bool(7),
            verification: Verification(status: status, msisdn: msisdn, challenge: challenge),
            createdAt: Timestamp(milliseconds: try row.int64(15)), updatedAt: Timestamp(milliseconds: try row.int64(16)),
            apnsSandbox: try row.optionalBool(14))
    }

    /// msisdn, platform, user_agent, push_token, status, notifications_enabled, pin_nonce, pin_msisdn,
    /// pin_issued_at, pin_expires_at, pin_attempts, pin_length, apns_sandbox — in that order.
    private static func mutableParameters(_ registration: DeviceRegistration) -> [String?] {
        let challenge = registration.verification.challenge
        return [registration.msisdn?.e164, registration.platform.wireName, registration.userAgent, registration.pushToken?.text,
                registration.status.wireName, registration.notificationsEnabled.pgText, challenge?.nonce, challenge?.msisdn.e164,
                challenge?.issuedAt.pgText, challenge?.expiresAt.pgText, String(challenge?.attempts ?? 0),
                challenge.flatMap { $0.pinLength.map { String($0) } }, registration.apnsSandbox.pgText]
    }

    /// A push token addresses one install: another registration of the same app holding it loses it — with
    /// `unchanged`, only while `registration`'s row still has that whole text. Nil without a token.
    private static func releasePushToken(_ registration: DeviceRegistration, unchanged whole: String? = nil) -> PGStatement? {
        guard let token = registration.pushToken else { return nil }
        var parameters: [String?] = [registration.updatedAt.pgText, registration.app.text, token.text, registration.deviceID.text]
        var guardClause = ""
        if let whole {
            guardClause = " AND EXISTS (SELECT 1 FROM registrations g WHERE g.device_id = $4 AND g::text = $5)"
            parameters.append(whole)
        }
        return PGStatement("""
            UPDATE registrations SET push_token = NULL, updated_at = $1
            WHERE app_id = (SELECT id FROM apps WHERE app_key = $2) AND push_token = $3 AND device_id <> $4\(guardClause)
            """, parameters)
    }
}
