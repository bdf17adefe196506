import TandemCore

/// What the intake reads and writes for recipients named without a number: registrations by device id, and
/// push tokens addressed directly (``PushAddressRegistry``).
extension Store: PushAddressRegistry {
    /// The registration with this device id if it belongs to `app`; nil otherwise.
    /// Through the registration cache: a registration's app never changes, so one cached for another app is not this app's.
    public func registration(app: AppKey, device: DeviceID) throws(StoreError) -> Registration? {
        if let cached = try registrations.routingRegistration(device, load: { () throws(StoreError) -> Registration? in
            try read { (db: Connection) throws(StoreError) -> Registration? in
                guard let row = try db.queryFirst("""
                    SELECT r.device_id, r.msisdn, r.platform, r.push_token, r.status, r.notifications_enabled, r.apns_sandbox,
                       COALESCE(r.apns_topic, substr(r.application_id, 12)) AS apns_topic, p.app_key
                    FROM registrations r JOIN apps p ON p.id = r.app_id WHERE r.device_id = ?
                    """, [.text(device.text)]) else { return nil }
                let keyText = try row.get("app_key", as: String.self)
                guard let owner = AppKey(keyText) else { throw StoreError.decoding(column: "apps.app_key", message: keyText) }
                return try Self.routingRegistration(row, app: owner)
            }
        }) {
            return cached.app == app ? cached : nil
        }
        return nil
    }

    /// The registration of `app` that holds `token` (whatever created it), else a new one with origin
    /// `pushAddress`: unverified, notifications on, no number. One write when the token is new; a read otherwise.
    public func addressedRegistration(app: AppKey, platform: Platform, token: PushToken,
                                      at now: Timestamp) async throws(StoreError) -> Registration {
        if let existing = try read({ (db: Connection) throws(StoreError) -> Registration? in
            try Self.registration(app: app, token: token, on: db)
        }) {
            return existing
        }
        return try await write { (db: Connection) throws(StoreError) -> Registration in
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(app.text)], as: Int64.self) else {
                throw StoreError.decoding(column: "registrations.app_id", message: "no app has key \(app)")
            }
            var generator = SystemRandomNumberGenerator()
            // A concurrent request may have added the same token since the read: then its row is the one.
            try db.run("""
                INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
                VALUES (?, ?, ?, ?, 'Unverified', 'pushAddress', ?, ?)
                ON CONFLICT (app_id, push_token) WHERE push_token IS NOT NULL DO NOTHING
                """, [.text(DeviceID(GUID.random(using: &generator)).text), .integer(appID), .text(platform.wireName),
                      .text(token.text), .integer(now.milliseconds), .integer(now.milliseconds)])
            guard let stored = try Self.registration(app: app, token: token, on: db) else {
                throw StoreError.decoding(column: "registrations", message: "push address of app \(app) not stored")
            }
            return stored
        }
    }

    private static func registration(app: AppKey, token: PushToken, on db: Connection) throws(StoreError) -> Registration? {
        guard let row = try db.queryFirst("""
            SELECT r.device_id, r.msisdn, r.platform, r.push_token, r.status, r.notifications_enabled, r.apns_sandbox,
                   COALESCE(r.apns_topic, substr(r.application_id, 12)) AS apns_topic
            FROM registrations r JOIN apps p ON p.id = r.app_id WHERE p.app_key = ? AND r.push_token = ?
            """, [.text(app.text), .text(token.text)]) else { return nil }
        return try routingRegistration(row, app: app)
    }

    /// A registration as the router sees it, from `device_id, msisdn, platform, push_token, status,
    /// notifications_enabled, apns_sandbox, apns_topic`.
    static func routingRegistration(_ row: Row, app: AppKey) throws(StoreError) -> Registration {
        let deviceText = try row.get("device_id", as: String.self)
        let tokenText = try row.get("push_token", as: String?.self)
        let msisdnText = try row.get("msisdn", as: String?.self)
        guard let device = DeviceID(deviceText),
              let platform = Platform(wireName: try row.get("platform", as: String.self)),
              let status = RegistrationStatus(wireName: try row.get("status", as: String.self)) else {
            throw .decoding(column: "registrations", message: "registration \(deviceText) has a malformed stored value")
        }
        let msisdn = try msisdnText.map { (text) throws(StoreError) -> MSISDN in
            guard let msisdn = MSISDN(text) else {
                throw .decoding(column: "registrations.msisdn", message: "not an E.164 number: \(text)")
            }
            return msisdn
        }
        return Registration(deviceID: device, app: app, msisdn: msisdn, platform: platform,
                            pushToken: tokenText.flatMap(PushToken.init), status: status,
                            notificationsEnabled: try row.get("notifications_enabled", as: Bool.self),
                            apnsSandbox: try row.get("apns_sandbox", as: Bool?.self),
                            apnsTopic: try row.get("apns_topic", as: String?.self))
    }
}
