/// Tandem's schema as an ordered list of migrations. Append new migrations; never edit a released one.
///
/// A new database does not replay them: it gets ``fresh``, migrations 1–27 squashed into one script (their final
/// tables, indexes, triggers and seeded rows; `TandemSchema+Fresh.swift`), in one transaction that records version
/// 27; later migrations then run as on any database at 27. A database at any older version goes through the missing
/// migrations one by one, as before; `FreshSchemaTests` holds the two results side by side (``Store/open(_:migrations:fresh:)``, ``Connection/migrate(_:fresh:)``).
///
/// Conventions: STRICT tables; times are INTEGER unix milliseconds; booleans are INTEGER 0/1
/// (CHECKed); JSON columns are TEXT checked with `json_valid`, except `deliveries.snapshot`, which only
/// the store writes (migration 6); CHECKs list allowed values as `=` comparisons, or `IN` of at most two
/// (SQLite builds a temporary index for a longer `IN` list on every write: migration 9; `registrations` and
/// `apps` keep their older lists until they are next rebuilt, off the hot paths); foreign keys are
/// enforced (connections set `foreign_keys=ON`) and every child column has an index, except
/// `provider_refs.delivery_id` while nothing deletes deliveries (migration 8).
/// Not guaranteed: any cascade — deleting a parent with children fails with a FOREIGN KEY
/// ``StoreError/constraint(extendedCode:message:sql:)``; accounts are disabled rather than deleted.
public enum TandemSchema {
    public static let migrations: [Migration] = [initial, scheduler, gateway, deviceAPI, writePath, snapshotUnchecked, spool, unusedIndexes,
                                                  messageTypeComparisons, spoolQueues, policies, smsProtection, intake, scg, appUsers, cospaceRegistrations,
                                                  messageSearch, bwmiDevices, bwmiNotifications, mymspAccounts, mymspEvents,
                                                  bwmiLiveExpiry, bwmiAcknowledgementsUnindexed]

    /// Migration 1: accounts, apps, registrations, messages, deliveries, delivery_events, outbox, provider_refs.
    ///
    /// Index notes for callers:
    /// - the pending-deadline indexes were partial (`final = 0`); migration 5 drops them, unused;
    /// - the outbox index is partial (`delivered_at IS NULL`); query `WHERE delivered_at IS NULL AND next_attempt_at <= ?`;
    /// - `delivery_events` rejects UPDATE (append-only); DELETE is allowed for retention purges.
    public static let initial = Migration(version: 1, name: "initial schema", sql: """
        CREATE TABLE accounts (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            product_token TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))
        ) STRICT;

        CREATE TABLE apps (
            id INTEGER PRIMARY KEY,
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            name TEXT NOT NULL,
            app_key TEXT NOT NULL UNIQUE,
            app_secret TEXT NOT NULL,
            default_message_type TEXT NOT NULL DEFAULT 'Default'
                CHECK (default_message_type IN ('Default', 'OTP', 'Critical')),
            push_credentials TEXT CHECK (push_credentials IS NULL OR json_valid(push_credentials)),
            created_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX apps_account ON apps(account_id);

        CREATE TABLE registrations (
            id INTEGER PRIMARY KEY,
            device_id TEXT NOT NULL UNIQUE,
            app_id INTEGER NOT NULL REFERENCES apps(id),
            msisdn TEXT,
            platform TEXT NOT NULL,
            user_agent TEXT NOT NULL DEFAULT '',
            push_token TEXT,
            status TEXT NOT NULL DEFAULT 'Unverified'
                CHECK (status IN ('Unverified', 'WaitingForPin', 'LastPinVerificationFailed', 'PinVerified', 'Invalid')),
            pin_hash TEXT,
            pin_expires_at INTEGER,
            pin_attempts INTEGER NOT NULL DEFAULT 0 CHECK (pin_attempts >= 0),
            notifications_enabled INTEGER NOT NULL DEFAULT 1 CHECK (notifications_enabled IN (0, 1)),
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX registrations_app_msisdn ON registrations(app_id, msisdn);
        CREATE UNIQUE INDEX registrations_app_push_token ON registrations(app_id, push_token)
            WHERE push_token IS NOT NULL;

        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            message_id TEXT NOT NULL UNIQUE,
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            app_id INTEGER REFERENCES apps(id),
            idempotency_key TEXT,
            sender TEXT NOT NULL,
            body TEXT NOT NULL,
            body_type TEXT NOT NULL DEFAULT 'Auto',
            reference TEXT,
            message_type TEXT NOT NULL DEFAULT 'Default'
                CHECK (message_type IN ('Default', 'OTP', 'Critical')),
            allowed_channels TEXT NOT NULL,
            validity_until INTEGER,
            custom_grouping TEXT,
            custom_grouping2 TEXT,
            custom_grouping3 TEXT,
            dcs INTEGER,
            rich_content TEXT CHECK (rich_content IS NULL OR json_valid(rich_content)),
            created_at INTEGER NOT NULL
        ) STRICT;
        CREATE UNIQUE INDEX messages_idempotency ON messages(account_id, idempotency_key)
            WHERE idempotency_key IS NOT NULL;
        CREATE INDEX messages_account_created ON messages(account_id, created_at);
        CREATE INDEX messages_app ON messages(app_id) WHERE app_id IS NOT NULL;

        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL REFERENCES messages(id),
            msisdn TEXT NOT NULL,
            state TEXT NOT NULL,
            status TEXT NOT NULL,
            channel TEXT,
            update_id INTEGER NOT NULL DEFAULT 0,
            push_deadline INTEGER,
            read_deadline INTEGER,
            expires_at INTEGER,
            final INTEGER NOT NULL DEFAULT 0 CHECK (final IN (0, 1)),
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX deliveries_message ON deliveries(message_id);
        CREATE INDEX deliveries_msisdn ON deliveries(msisdn);
        CREATE INDEX deliveries_pending_push ON deliveries(push_deadline)
            WHERE final = 0 AND push_deadline IS NOT NULL;
        CREATE INDEX deliveries_pending_read ON deliveries(read_deadline)
            WHERE final = 0 AND read_deadline IS NOT NULL;
        CREATE INDEX deliveries_pending_expiry ON deliveries(expires_at)
            WHERE final = 0 AND expires_at IS NOT NULL;

        CREATE TABLE delivery_events (
            id INTEGER PRIMARY KEY,
            delivery_id INTEGER NOT NULL REFERENCES deliveries(id),
            at INTEGER NOT NULL,
            kind TEXT NOT NULL,
            detail TEXT
        ) STRICT;
        CREATE INDEX delivery_events_delivery ON delivery_events(delivery_id, id);
        CREATE TRIGGER delivery_events_append_only BEFORE UPDATE ON delivery_events
        BEGIN
            SELECT RAISE(ABORT, 'delivery_events is append-only');
        END;

        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY,
            delivery_id INTEGER REFERENCES deliveries(id),
            url TEXT NOT NULL,
            payload TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            next_attempt_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            delivered_at INTEGER
        ) STRICT;
        CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE delivered_at IS NULL;
        CREATE INDEX outbox_delivery ON outbox(delivery_id) WHERE delivery_id IS NOT NULL;

        CREATE TABLE provider_refs (
            provider TEXT NOT NULL,
            ref TEXT NOT NULL,
            delivery_id INTEGER NOT NULL REFERENCES deliveries(id),
            created_at INTEGER NOT NULL,
            PRIMARY KEY (provider, ref)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX provider_refs_delivery ON provider_refs(delivery_id);
        """)
}
