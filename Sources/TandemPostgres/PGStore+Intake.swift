import TandemCore

/// What the intake reads and writes for recipients named without a number, as SQLite's `Store+Intake.swift`:
/// registrations by device id, and push tokens addressed directly (``PushAddressRegistry``).
extension PGStore: PushAddressRegistry {
    /// The columns ``routingRegistration(_:app:)`` reads, from `registrations r`.
    static let routingColumns = """
        r.device_id, r.msisdn, r.platform, r.push_token, r.status, r.notifications_enabled, r.apns_sandbox,
        COALESCE(r.apns_topic, substr(r.application_id, 12))
        """

    /// The registration with this device id if it belongs to `app`; nil otherwise.
    public func registration(app: AppKey, device: DeviceID) async throws(PGError) -> Registration? {
        let result = try await read { db throws(PGError) in
            try db.execute("""
                SELECT \(Self.routingColumns) FROM registrations r JOIN apps p ON p.id = r.app_id
                WHERE r.device_id = $1 AND p.app_key = $2
                """, [device.text, app.text])
        }
        return try result.rows("registration \(device)").first.map { (row) throws(PGError) in try Self.routingRegistration(row, app: app) }
    }

    /// The registration of `app` that holds `token` (whatever created it), else a new one with origin
    /// `pushAddress`: unverified, notifications on, no number. One write when the token is new; a read otherwise.
    /// An unknown app fails with SQLSTATE 23503.
    public func addressedRegistration(app: AppKey, platform: Platform, token: PushToken,
                                      at now: Timestamp) async throws(PGError) -> Registration {
        let lookup = """
            SELECT \(Self.routingColumns) FROM registrations r JOIN apps p ON p.id = r.app_id
            WHERE p.app_key = $1 AND r.push_token = $2
            """
        let existing = try await read { db throws(PGError) in try db.execute(lookup, [app.text, token.text]) }
        if let row = existing.rows("push address of app \(app)").first { return try Self.routingRegistration(row, app: app) }
        var generator = SystemRandomNumberGenerator()
        // A concurrent request may have added the same token since the read: then its row is the one.
        let results = try await write([
            .appMustExist(app),
            PGStatement("""
                INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
                SELECT $1, id, $3, $4, 'Unverified', 'pushAddress', $5, $5 FROM apps WHERE app_key = $2
                ON CONFLICT (app_id, push_token) WHERE push_token IS NOT NULL DO NOTHING
                """, [DeviceID(GUID.random(using: &generator)).text, app.text, platform.wireName, token.text, now.pgText]),
            PGStatement(lookup, [app.text, token.text]),
        ])
        guard let row = results[2].rows("push address of app \(app)").first else {
            throw .client("registrations: push address of app \(app) not stored")
        }
        return try Self.routingRegistration(row, app: app)
    }

    /// A registration as the router sees it, from ``routingColumns``.
    static func routingRegistration(_ row: PGRow, app: AppKey) throws(PGError) -> Registration {
        let deviceText = try row.text(0)
        guard let device = DeviceID(deviceText), let platform = Platform(wireName: try row.text(2)),
              let status = RegistrationStatus(wireName: try row.text(4)) else {
            throw .client("registrations: registration \(deviceText) has a malformed stored value")
        }
        let msisdn = try row.optional(1).map { (text) throws(PGError) -> MSISDN in
            guard let msisdn = MSISDN(text) else { throw .client("registrations.msisdn: not an E.164 number: \(text)") }
            return msisdn
        }
        return Registration(deviceID: device, app: app, msisdn: msisdn, platform: platform,
                            pushToken: row.optional(3).flatMap(PushToken.init), status: status,
                            notificationsEnabled: try row.bool(5), apnsSandbox: try row.optionalBool(6),
                            apnsTopic: row.optional(7))
    }
}
