import TandemCore

/// The TIBCO BWMI API's tables (migrations 23 and 24): devices, app settings, managed notifications.
extension Store: BWMIRegistry {
    private static let deviceColumns = """
        r.device_id, r.platform, r.push_token, r.status, r.notifications_enabled, d.phone, d.email
        """

    public func bwmiSettings(app: AppKey) throws(StoreError) -> BWMIAppSettings {
        try read { (db: Connection) throws(StoreError) -> BWMIAppSettings in
            guard let row = try db.queryFirst("""
                SELECT s.trust_phones, s.static_key FROM bwmi_apps s JOIN apps p ON p.id = s.app_id WHERE p.app_key = ?
                """, [.text(app.text)]) else { return BWMIAppSettings() }
            return BWMIAppSettings(trustPhones: try row.get("trust_phones", as: Bool.self),
                                   staticKey: try row.get("static_key", as: String?.self))
        }
    }

    /// From ``bwmiApps`` while nothing was committed since it was read (by any process), else read: the app and its
    /// settings in one statement.
    public func bwmiApp(key: AppKey) throws(StoreError) -> BWMIApp? {
        try bwmiApps.value(key) { () throws(StoreError) -> BWMIApp? in
            try read { (db: Connection) throws(StoreError) -> BWMIApp? in
                guard let row = try db.queryFirst("""
                    SELECT p.name, p.app_secret, p.default_message_type, p.created_at, p.sms_protection, p.sender_id,
                           a.product_token, s.trust_phones, s.static_key
                    FROM apps p JOIN accounts a ON a.id = p.account_id LEFT JOIN bwmi_apps s ON s.app_id = p.id
                    WHERE p.app_key = ?
                    """, [.text(key.text)]) else { return nil }
                let settings = BWMIAppSettings(trustPhones: try row.get("trust_phones", as: Bool?.self) ?? false,
                                               staticKey: try row.get("static_key", as: String?.self))
                return BWMIApp(app: try Self.app(row, key: key), settings: settings)
            }
        }
    }

    public func rendersBWMIPushes(app: AppKey) throws(StoreError) -> Bool {
        try bwmiSettings(app: app).trustPhones
    }

    public func setBWMISettings(app: AppKey, _ settings: BWMIAppSettings) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(app.text)], as: Int64.self) else {
                return false
            }
            try db.run("""
                INSERT INTO bwmi_apps (app_id, trust_phones, static_key) VALUES (?, ?, ?)
                ON CONFLICT (app_id) DO UPDATE SET trust_phones = excluded.trust_phones, static_key = excluded.static_key
                """, [.integer(appID), .integer(settings.trustPhones ? 1 : 0), settings.staticKey.sqlValue])
            return true
        }
    }

    public func registerBWMIDevice(app: AppKey, platform: Platform, token: PushToken, phone: MSISDN?, email: String?,
                                   at now: Timestamp) async throws(StoreError) -> BWMIDevice {
        let device = try await write { (db: Connection) throws(StoreError) -> BWMIDevice in
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(app.text)], as: Int64.self) else {
                throw StoreError.decoding(column: "registrations.app_id", message: "no app has key \(app)")
            }
            var generator = SystemRandomNumberGenerator()
            // The token may already be a registration of the app (registered before, or addressed directly):
            // then that row is the device; a dead or deregistered one comes back to life.
            try db.run("""
                INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
                VALUES (?, ?, ?, ?, 'Unverified', 'bwmi', ?, ?)
                ON CONFLICT (app_id, push_token) WHERE push_token IS NOT NULL DO UPDATE SET
                    platform = excluded.platform, notifications_enabled = 1, updated_at = excluded.updated_at,
                    status = CASE WHEN status = 'Invalid' THEN 'Unverified' ELSE status END
                """, [.text(DeviceID(GUID.random(using: &generator)).text), .integer(appID), .text(platform.wireName),
                      .text(token.text), .integer(now.milliseconds), .integer(now.milliseconds)])
            guard let registrationID = try db.scalar("SELECT id FROM registrations WHERE app_id = ? AND push_token = ?",
                                                     [.integer(appID), .text(token.text)], as: Int64.self) else {
                throw StoreError.decoding(column: "registrations", message: "BWMI device of app \(app) not stored")
            }
            try db.run("""
                INSERT INTO bwmi_devices (registration_id, app_id, phone, email) VALUES (?, ?, ?, ?)
                ON CONFLICT (registration_id) DO UPDATE SET phone = excluded.phone, email = excluded.email
                """, [.integer(registrationID), .integer(appID), (phone?.e164).sqlValue, email.sqlValue])
            guard let stored = try Self.bwmiDevices(app: app, condition: "r.id = ?", [.integer(registrationID)], on: db).first else {
                throw StoreError.decoding(column: "bwmi_devices", message: "BWMI device of app \(app) not stored")
            }
            return stored
        }
        registrations.invalidate([device.deviceID])
        return device
    }

    public func deregisterBWMIDevice(app: AppKey, token: PushToken, at now: Timestamp) async throws(StoreError) -> Bool {
        let device = try await write { (db: Connection) throws(StoreError) -> DeviceID? in
            guard let row = try db.queryFirst("""
                SELECT r.id, r.device_id FROM registrations r JOIN apps p ON p.id = r.app_id
                JOIN bwmi_devices d ON d.registration_id = r.id WHERE p.app_key = ? AND r.push_token = ?
                """, [.text(app.text), .text(token.text)]) else { return nil }
            try db.run("UPDATE registrations SET notifications_enabled = 0, updated_at = ? WHERE id = ?",
                       [.integer(now.milliseconds), .integer(try row.get("id", as: Int64.self))])
            return DeviceID(try row.get("device_id", as: String.self))
        }
        guard let device else { return false }
        registrations.invalidate([device])
        return true
    }

    /// From the registration cache when it holds it (see `RegistrationCache`), else read.
    public func bwmiDevice(app: AppKey, token: PushToken) throws(StoreError) -> BWMIDevice? {
        try registrations.bwmiDevice(app: app, token: token) { () throws(StoreError) -> BWMIDevice? in
            try read { (db: Connection) throws(StoreError) -> BWMIDevice? in
                try Self.bwmiDevices(app: app, condition: "r.push_token = ?", [.text(token.text)], on: db).first
            }
        }
    }

    /// Always answered, synchronously (``bwmiDevice(app:token:)``: the cache, else a page-cache read).
    public func cachedBWMIDevice(app: AppKey, token: PushToken) throws(StoreError) -> BWMIDevice?? {
        .some(try bwmiDevice(app: app, token: token))
    }

    /// Always answered, synchronously (``bwmiApp(key:)``: its cache, else a page-cache read).
    public func cachedBWMIApp(key: AppKey) throws(StoreError) -> BWMIApp?? {
        .some(try bwmiApp(key: key))
    }

    public func bwmiDevices(app: AppKey, phone: MSISDN) throws(StoreError) -> [BWMIDevice] {
        try read { (db: Connection) throws(StoreError) -> [BWMIDevice] in
            try Self.bwmiDevices(app: app, condition: "d.phone = ?", [.text(phone.e164)], on: db)
        }
    }

    public func bwmiDevices(app: AppKey, email: String) throws(StoreError) -> [BWMIDevice] {
        try read { (db: Connection) throws(StoreError) -> [BWMIDevice] in
            try Self.bwmiDevices(app: app, condition: "d.email = ?", [.text(email)], on: db)
        }
    }

    /// From what the writer holds for the device (``BWMILiveNotifications``), else counted in the database.
    public func liveBWMICount(device: BWMIDevice, at now: Timestamp) throws(StoreError) -> Int {
        if let held = bwmiLive.heldCount(device.deviceID, at: now) { return held }
        return try read { (db: Connection) throws(StoreError) -> Int in
            Int(try db.scalar(Self.liveBWMICountSQL, [.text(device.deviceID.text), .integer(now.milliseconds)], as: Int64.self) ?? 0)
        }
    }

    /// Inside a write job: the device's live count, held (loaded on the writer's connection the first time).
    static func liveBWMICount(device: DeviceID, at now: Timestamp, on db: Connection,
                              live: BWMILiveNotifications) throws(StoreError) -> Int {
        try live.count(device, at: now) { () throws(StoreError) -> [BWMILiveNotifications.Live] in
            try db.query(liveBWMISQL, [.text(device.text), .integer(now.milliseconds)]).map { (row) throws(StoreError) in
                BWMILiveNotifications.Live(delivery: try row.get(0, as: Int64.self), expires: try row.get(1, as: Int64.self))
            }
        }
    }

    /// A device's live notifications (bound: its device id, then now): its unexpired ones through
    /// `bwmi_notifications_device` (migration 28), each looked up for its acknowledgement.
    private static let liveBWMIRows = """
        FROM bwmi_notifications n JOIN registrations r ON r.id = n.registration_id
        WHERE r.device_id = ? AND n.expires_at > ? AND n.acked_at IS NULL
        """

    /// A device's live count, read. Not on the acknowledgement's path (there the writer holds the count).
    static let liveBWMICountSQL = "SELECT count(*) " + liveBWMIRows

    /// A device's live notifications as ``BWMILiveNotifications`` holds them.
    static let liveBWMISQL = "SELECT n.delivery_id, n.expires_at " + liveBWMIRows

    /// A device's pending list, oldest first.
    private static let liveBWMIListSQL = "SELECT n.delivery_id, n.text, n.bid, n.sent_at, n.expires_at " + liveBWMIRows
        + " ORDER BY n.sent_at, n.delivery_id"

    public func liveBWMINotifications(device: BWMIDevice, at now: Timestamp) throws(StoreError) -> [BWMINotification] {
        try read { (db: Connection) throws(StoreError) -> [BWMINotification] in
            try db.query(Self.liveBWMIListSQL, [.text(device.deviceID.text), .integer(now.milliseconds)]).map { (row) throws(StoreError) in
                BWMINotification(delivery: DeliveryKey(try row.get("delivery_id", as: Int64.self)), device: device.deviceID,
                                 text: try row.get("text", as: String?.self) ?? "", bid: try row.get("bid", as: String?.self),
                                 sentAt: Timestamp(milliseconds: try row.get("sent_at", as: Int64.self)),
                                 expiresAt: Timestamp(milliseconds: try row.get("expires_at", as: Int64.self)))
            }
        }
    }

    /// Records each notification once, counted in what the writer holds; a device it does not hold yet is then loaded
    /// while there is room (``BWMILiveNotifications/hasRoom``), so that the badges of the device's next notifications
    /// and acknowledgements are counted in memory, not read.
    public func recordBWMINotifications(_ notifications: [BWMINotification]) async throws(StoreError) {
        guard !notifications.isEmpty else { return }
        try await writeChangingLive(notifications.map(\.device)) { [bwmiLive] (db: Connection) throws(StoreError) in
            var recorded: [DeviceID: Timestamp] = [:]
            for notification in notifications {
                let inserted = try db.run("""
                    INSERT INTO bwmi_notifications (delivery_id, registration_id, text, bid, sent_at, expires_at)
                    SELECT ?, id, ?, ?, ?, ? FROM registrations WHERE device_id = ?
                    ON CONFLICT DO NOTHING
                    """, [.integer(notification.delivery.rawValue), .text(notification.text), notification.bid.sqlValue,
                          .integer(notification.sentAt.milliseconds), .integer(notification.expiresAt.milliseconds),
                          .text(notification.device.text)])
                if inserted > 0 {
                    bwmiLive.recorded(notification.device, .init(delivery: notification.delivery.rawValue,
                                                                 expires: notification.expiresAt.milliseconds))
                    recorded[notification.device] = notification.sentAt
                }
            }
            for (device, sentAt) in recorded {
                guard bwmiLive.hasRoom else { break }
                _ = try Self.liveBWMICount(device: device, at: sentAt, on: db, live: bwmiLive)  // loads one not held
            }
        }
    }

    public func acknowledgeBWMI(delivery: DeliveryKey, device: BWMIDevice, at now: Timestamp,
                                hybrid: Bool) async throws(StoreError) -> BWMIAcknowledgement {
        try await writeChangingLive([device.deviceID]) { [bwmiLive] (db: Connection) throws(StoreError) -> BWMIAcknowledgement in
            try Self.acknowledgeBWMI(delivery: delivery, device: device.deviceID, at: now, hybrid: hybrid, on: db, live: bwmiLive)
        }
    }

    /// ``acknowledgeBWMI(delivery:device:at:hybrid:)`` inside a transaction the caller holds (the writer's job):
    /// a live row is acknowledged by one statement (which changes no index: migration 28), and no longer counted in
    /// `live`; only otherwise is the row looked at.
    static func acknowledgeBWMI(delivery: DeliveryKey, device: DeviceID, at now: Timestamp, hybrid: Bool,
                                on db: Connection, live: BWMILiveNotifications) throws(StoreError) -> BWMIAcknowledgement {
        let acknowledged = try db.run("""
            UPDATE bwmi_notifications SET acked_at = ?
            WHERE delivery_id = ? AND registration_id = (SELECT id FROM registrations WHERE device_id = ?)
              AND acked_at IS NULL AND expires_at > ?
            """, [.integer(now.milliseconds), .integer(delivery.rawValue), .text(device.text), .integer(now.milliseconds)])
        if acknowledged > 0 {
            live.acknowledged(device, delivery: delivery.rawValue)
            return .acknowledged
        }
        guard let registrationID = try db.scalar("SELECT id FROM registrations WHERE device_id = ?",
                                                 [.text(device.text)], as: Int64.self) else { return .unknown }
        let exists = try db.scalar("SELECT 1 FROM bwmi_notifications WHERE delivery_id = ? AND registration_id = ?",
                                   [.integer(delivery.rawValue), .integer(registrationID)], as: Int64.self) != nil
        // A row not acknowledged by the statement above was acknowledged or had expired already.
        if exists { return .alreadyAcknowledged }
        guard hybrid else { return .unknown }
        // Inserted acknowledged: it never was live.
        try db.run("""
            INSERT INTO bwmi_notifications (delivery_id, registration_id, sent_at, expires_at, acked_at)
            VALUES (?, ?, ?, ?, ?)
            """, [.integer(delivery.rawValue), .integer(registrationID), .integer(now.milliseconds),
                  .integer(now.milliseconds), .integer(now.milliseconds)])
        return .acknowledged
    }

    /// A write that changes the live notifications of `devices`: if it fails (its own statements, or its
    /// transaction), the writer forgets those devices before it runs another job (``BWMILiveNotifications``).
    private func writeChangingLive<T: Sendable>(_ devices: [DeviceID],
                                                _ body: @escaping @Sendable (Connection) throws(StoreError) -> T) async throws(StoreError) -> T {
        let live = bwmiLive
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, StoreError>, Never>) in
            queueWrite({ (db: Connection) throws(StoreError) -> T in
                do throws(StoreError) {
                    return try body(db)
                } catch {
                    live.forget(devices)  // before a later job of this transaction counts them
                    throw error
                }
            }, completion: { outcome in
                if case .failure = outcome { live.forget(devices) }
                continuation.resume(returning: outcome)
            })
        }
        return try outcome.get()
    }

    /// The app's BWMI devices matching `condition` (SQL over `registrations r` and `bwmi_devices d`).
    private static func bwmiDevices(app: AppKey, condition: String, _ bindings: [SQLValue],
                                    on db: Connection) throws(StoreError) -> [BWMIDevice] {
        try db.query("""
            SELECT \(deviceColumns) FROM bwmi_devices d JOIN registrations r ON r.id = d.registration_id
            JOIN apps p ON p.id = d.app_id WHERE p.app_key = ? AND \(condition) ORDER BY r.id
            """, [.text(app.text)] + bindings).map { (row) throws(StoreError) -> BWMIDevice in
            let idText = try row.get("device_id", as: String.self)
            guard let id = DeviceID(idText), let platform = Platform(wireName: try row.get("platform", as: String.self)),
                  let token = try row.get("push_token", as: String?.self).flatMap(PushToken.init) else {
                throw .decoding(column: "bwmi_devices", message: "BWMI device \(idText) has a malformed stored value")
            }
            let enabled = try row.get("notifications_enabled", as: Bool.self)
            let status = try row.get("status", as: String.self)
            return BWMIDevice(deviceID: id, app: app, platform: platform, token: token,
                              phone: try row.get("phone", as: String?.self).flatMap(MSISDN.init),
                              email: try row.get("email", as: String?.self), active: enabled && status != "Invalid")
        }
    }
}
