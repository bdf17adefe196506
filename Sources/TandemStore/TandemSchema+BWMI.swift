/// Migrations 23, 24, 27 and 28: TIBCO BWMI (the `/bwmi/{appKey}/` API).
extension TandemSchema {
    /// Migration 23: BWMI devices and the apps' BWMI settings.
    ///
    /// - `bwmi_devices`: one row per registration a BWMI app registered by token (`registrations.origin` is
    ///   `bwmi` for those it created), with the phone (E.164, normalised) and email the app claimed. The
    ///   phone is not `registrations.msisdn`: it is not verified, and routes MSISDN messages only for an app
    ///   whose `bwmi_apps.trust_phones` is 1. A deregistered device keeps its row and has
    ///   `registrations.notifications_enabled` 0 until it registers again.
    /// - `bwmi_apps`: per app, `trust_phones` (0/1) and the static key its devices must send in
    ///   `X-BWMI-Key` (NULL: none). No row: the defaults (not trusted, no key).
    public static let bwmiDevices = Migration(version: 23, name: "BWMI devices and app settings", sql: """
        CREATE TABLE bwmi_devices (
            registration_id INTEGER PRIMARY KEY REFERENCES registrations(id),
            app_id INTEGER NOT NULL REFERENCES apps(id),
            phone TEXT,
            email TEXT
        ) STRICT;
        CREATE INDEX bwmi_devices_phone ON bwmi_devices(app_id, phone) WHERE phone IS NOT NULL;
        CREATE INDEX bwmi_devices_email ON bwmi_devices(app_id, email) WHERE email IS NOT NULL;
        CREATE TABLE bwmi_apps (
            app_id INTEGER PRIMARY KEY REFERENCES apps(id),
            trust_phones INTEGER NOT NULL DEFAULT 0 CHECK (trust_phones = 0 OR trust_phones = 1),
            static_key TEXT
        ) STRICT;
        """)

    /// Migration 24: BWMI managed notifications, one row per delivery that a device must acknowledge.
    ///
    /// A row is live while `acked_at` is NULL and `expires_at` is later than now (the message type's
    /// policy lifetime from `sent_at`); the device's badge counts its live rows. The delivery itself keeps
    /// the push's state; this table keeps only what BWMI's pending list shows (text, business id, time)
    /// and the acknowledgement. A CM message routed to a device of a trusting app gets its row when the
    /// device acknowledges it (`text` then NULL: it was never pending).
    public static let bwmiNotifications = Migration(version: 24, name: "BWMI managed notifications", sql: """
        CREATE TABLE bwmi_notifications (
            delivery_id INTEGER NOT NULL REFERENCES deliveries(id),
            registration_id INTEGER NOT NULL REFERENCES registrations(id),
            text TEXT,
            bid TEXT,
            sent_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            acked_at INTEGER,
            PRIMARY KEY (delivery_id, registration_id)
        ) STRICT;
        CREATE INDEX bwmi_notifications_live ON bwmi_notifications(registration_id, sent_at) WHERE acked_at IS NULL;
        """)

    /// Migration 27: the live-notifications index also holds `expires_at` and `acked_at` (always NULL in it: SQLite
    /// counts a column of the partial index's WHERE as covered only when the index holds it), so that a device's live
    /// count — the badge after every ack, `acked_at IS NULL AND expires_at > now` — is counted in the index alone,
    /// without a table lookup per live notification (those were most of the ack benchmark's CPU). The pending list
    /// still reads it in `sent_at` order.
    public static let bwmiLiveExpiry = Migration(version: 27, name: "BWMI live index covers the live count", sql: """
        DROP INDEX bwmi_notifications_live;
        CREATE INDEX bwmi_notifications_live ON bwmi_notifications(registration_id, sent_at, expires_at, acked_at)
            WHERE acked_at IS NULL;
        """)

    /// Migration 28: no index holds a notification's acknowledgement, so acknowledging one writes its own row alone.
    ///
    /// The live index of migration 27 (device, then only unacknowledged rows) lost its entry at every acknowledgement:
    /// a page at a random place, since the devices' notifications interleave, written to the log and copied back at
    /// each checkpoint. Together with the count it served, that was about 20 µs of the writer's and the checkpointer's
    /// time per acknowledgement (`docs/benchmarks.md`, "BWMI acks at 0.4× and above"). The badge after an acknowledgement is now counted from what the
    /// writer holds (`BWMILiveNotifications`); the pending list and the other counts read a device's unexpired rows
    /// through `bwmi_notifications_device` and look each up for its acknowledgement — bounded by the notifications
    /// sent within one lifetime, not by the device's history.
    public static let bwmiAcknowledgementsUnindexed = Migration(version: 28, name: "BWMI acknowledgements change no index", sql: """
        DROP INDEX bwmi_notifications_live;
        CREATE INDEX bwmi_notifications_device ON bwmi_notifications(registration_id, expires_at);
        """)
}
