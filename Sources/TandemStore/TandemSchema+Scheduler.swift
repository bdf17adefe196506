/// Migration 2: what the scheduler's ``SQLiteDeliveryStore`` needs on top of migration 1.
extension TandemSchema {
    /// Migration 2, in two parts.
    ///
    /// 1. `messages` is rebuilt (SQLite's 12-step procedure; ``Migration/rebuildsTables`` turns foreign
    ///    keys off around it and checks them before COMMIT) so that `account_id` and `allowed_channels`
    ///    may be NULL: the scheduler knows only a message's GUID, sender, body and reference
    ///    (`MessageContent`). NULL means "not recorded by the scheduler" — `allowed_channels` NULL reads
    ///    as "all channels", the spec's meaning of an absent `allowedChannels`. Every other column,
    ///    constraint, index and the row ids are kept; SQLite cannot drop a NOT NULL in place, and a
    ///    placeholder account would be a lie other queries would have to know about.
    /// 2. `deliveries` gains `snapshot` (the `Delivery` as JSON — the source of truth) and a partial
    ///    index for the in-flight scan (`WHERE final = 0 ORDER BY id`). `snapshot` is nullable only
    ///    because `ADD COLUMN … NOT NULL` needs a default and rows written before migration 2 have no
    ///    snapshot to give; the store always writes it, and refuses to load an in-flight row without one.
    ///
    /// Columns the store keeps in sync with the snapshot (for SQL queries; the snapshot wins):
    /// `state` (`Delivery.State`), `status` (wire name), `channel` (the resolution's channel, NULL until
    /// final or for a channel-less outcome), `final` (0/1), `push_deadline` (earliest of the
    /// `noDeliveryAck`/`noRead` timers), `read_deadline` (`noRead`), `expires_at` (earliest of
    /// `lifetime`/`smsValidity`), `updated_at`. `update_id` stays 0: the row id is the UpdateID.
    /// Not guaranteed: `outbox.url` is `''` for the scheduler's reports (the webhook sender resolves it).
    public static let scheduler = Migration(version: 2, name: "scheduler persistence", sql: """
        CREATE TABLE messages_v2 (
            id INTEGER PRIMARY KEY,
            message_id TEXT NOT NULL UNIQUE,
            account_id INTEGER REFERENCES accounts(id),
            app_id INTEGER REFERENCES apps(id),
            idempotency_key TEXT,
            sender TEXT NOT NULL,
            body TEXT NOT NULL,
            body_type TEXT NOT NULL DEFAULT 'Auto',
            reference TEXT,
            message_type TEXT NOT NULL DEFAULT 'Default'
                CHECK (message_type IN ('Default', 'OTP', 'Critical')),
            allowed_channels TEXT,
            validity_until INTEGER,
            custom_grouping TEXT,
            custom_grouping2 TEXT,
            custom_grouping3 TEXT,
            dcs INTEGER,
            rich_content TEXT CHECK (rich_content IS NULL OR json_valid(rich_content)),
            created_at INTEGER NOT NULL
        ) STRICT;
        INSERT INTO messages_v2 (id, message_id, account_id, app_id, idempotency_key, sender, body, body_type,
            reference, message_type, allowed_channels, validity_until, custom_grouping, custom_grouping2,
            custom_grouping3, dcs, rich_content, created_at)
        SELECT id, message_id, account_id, app_id, idempotency_key, sender, body, body_type,
            reference, message_type, allowed_channels, validity_until, custom_grouping, custom_grouping2,
            custom_grouping3, dcs, rich_content, created_at
        FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages_v2 RENAME TO messages;
        CREATE UNIQUE INDEX messages_idempotency ON messages(account_id, idempotency_key)
            WHERE idempotency_key IS NOT NULL;
        CREATE INDEX messages_account_created ON messages(account_id, created_at);
        CREATE INDEX messages_app ON messages(app_id) WHERE app_id IS NOT NULL;

        ALTER TABLE deliveries ADD COLUMN snapshot TEXT CHECK (snapshot IS NULL OR json_valid(snapshot));
        CREATE INDEX deliveries_in_flight ON deliveries(id) WHERE final = 0;
        """, rebuildsTables: true)
}
