/// The squashed schema: what migrations 1–27 leave behind, created at once on a new database.
extension TandemSchema {
    /// Migrations 1–27 squashed into one script for a new database (``Store/open(_:migrations:fresh:)`` applies
    /// it in one transaction with `user_version` 27; ``migrations`` stay for databases at any older version).
    ///
    /// Every table, index and trigger appears once, in its final form — `messages` and `deliveries` without their
    /// rebuilds (migrations 2, 6, 9), no index that a later migration dropped (5, 8) or replaced (3, 27) — and the
    /// rows migration 25 seeds: `sqlite_sequence` for `mymsp_recipients` and the one `mymsp_sequence` row. The
    /// comments say which migration each part comes from; the reasons are on the migrations themselves.
    ///
    /// Spelled as SQLite stores what the migrations leave, so that `sqlite_schema` matches theirs word for word
    /// (`FreshSchemaTests` compares them, whitespace aside): a table renamed into place by a rebuild keeps its name
    /// quoted (`CREATE TABLE "messages"`), and columns added by `ALTER TABLE … ADD COLUMN` follow a leading comma
    /// on a line of their own, the last one closing the column list. No comment goes inside a statement (SQLite
    /// would store it). Within a table, indexes are created in the migrations' order, which is the order SQLite's
    /// planner meets them in.
    ///
    /// Changing the schema: append a migration as before. `fresh` still
    /// stands for the migrations up to 27, and a new database gets the later ones after it, one by one, until they
    /// are squashed in too (their result written here and the 27 below raised, with `FreshSchemaTests` to prove it).
    public static let fresh = SquashedSchema(squashing: migrations.filter { $0.version <= 27 }, sql: """
        -- Accounts (1; webhook: 3; SMS countries: 12) and their apps (1; SMS protection: 12; sender id: 13).
        CREATE TABLE accounts (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            product_token TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))
            , webhook_url TEXT,
            webhook_format TEXT NOT NULL DEFAULT 'json'
                CHECK (webhook_format IN ('json', 'xml')),
            sms_countries TEXT CHECK (sms_countries IS NULL OR json_valid(sms_countries))) STRICT;

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
            , sms_protection TEXT CHECK (sms_protection IS NULL OR json_valid(sms_protection)),
            sender_id TEXT) STRICT;
        CREATE INDEX apps_account ON apps(account_id);
        CREATE UNIQUE INDEX apps_sender_id ON apps(account_id, sender_id) WHERE sender_id IS NOT NULL;

        -- Registrations (1; PIN challenge: 4; PIN length: 12; origin: 13; cospace owner and APNs environment: 18)
        -- and the cospace app users that own some of them (17).
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
            , pin_nonce TEXT,
            pin_msisdn TEXT,
            pin_issued_at INTEGER,
            pin_length INTEGER CHECK (pin_length IS NULL OR pin_length BETWEEN 4 AND 10),
            origin TEXT NOT NULL DEFAULT 'cm',
            owner_user INTEGER REFERENCES app_users(id),
            apns_sandbox INTEGER CHECK (apns_sandbox IS NULL OR apns_sandbox = 0 OR apns_sandbox = 1),
            apns_topic TEXT,
            application_id TEXT) STRICT;
        CREATE INDEX registrations_app_msisdn ON registrations(app_id, msisdn);
        CREATE UNIQUE INDEX registrations_app_push_token ON registrations(app_id, push_token)
            WHERE push_token IS NOT NULL;
        CREATE INDEX registrations_owner_user ON registrations(owner_user) WHERE owner_user IS NOT NULL;

        CREATE TABLE app_users (
            id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL REFERENCES apps(id),
            user_id TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        ) STRICT;
        CREATE UNIQUE INDEX app_users_app_user ON app_users(app_id, user_id);

        -- Messages as rebuilt by migration 9 (1; nullable account and channels: 2; fallback_for: 3; message_type
        -- CHECK without IN: 9), then API, presentation and extra fields (13) and the SCG hidden flag (15).
        -- Indexes: messages_idempotency, messages_app (1), messages_account_reference (3), messages_scg_listing (15);
        -- messages_account_created (1) was dropped by migration 8.
        CREATE TABLE "messages" (
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
                CHECK (message_type = 'Default' OR message_type = 'OTP' OR message_type = 'Critical'),
            allowed_channels TEXT,
            validity_until INTEGER,
            custom_grouping TEXT,
            custom_grouping2 TEXT,
            custom_grouping3 TEXT,
            dcs INTEGER,
            rich_content TEXT CHECK (rich_content IS NULL OR json_valid(rich_content)),
            created_at INTEGER NOT NULL,
            fallback_for TEXT
            , api TEXT NOT NULL DEFAULT 'cm',
            presentation TEXT CHECK (presentation IS NULL OR json_valid(presentation)),
            extra TEXT CHECK (extra IS NULL OR json_valid(extra)),
            hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden = 0 OR hidden = 1)) STRICT;
        CREATE UNIQUE INDEX messages_idempotency ON messages(account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
        CREATE INDEX messages_app ON messages(app_id) WHERE app_id IS NOT NULL;
        CREATE INDEX messages_account_reference ON messages(account_id, reference) WHERE reference IS NOT NULL;
        CREATE INDEX messages_scg_listing ON messages(account_id, id) WHERE api = 'scg' AND hidden = 0;

        -- Recipient spools of bulk messages (7), queued by sending account (10).
        CREATE TABLE message_spools (
            message_id INTEGER PRIMARY KEY REFERENCES messages(id),
            recipients TEXT NOT NULL,
            total INTEGER NOT NULL CHECK (total > 0),
            started INTEGER NOT NULL DEFAULT 0 CHECK (started >= 0 AND started < total)
            , account_id INTEGER NOT NULL DEFAULT 0) STRICT;
        CREATE INDEX message_spools_queue ON message_spools(account_id, message_id);

        -- Deliveries as rebuilt by migration 6 (1; snapshot: 2; inbox flags: 4; snapshot without its JSON CHECK: 6).
        -- Indexes: deliveries_message (1), deliveries_in_flight (2), deliveries_inbox (5), deliveries_msisdn_message
        -- (20); deliveries_msisdn and the three pending-deadline indexes (1) were dropped by migration 5.
        CREATE TABLE "deliveries" (
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
            updated_at INTEGER NOT NULL,
            snapshot TEXT,
            pushed INTEGER NOT NULL DEFAULT 0 CHECK (pushed IN (0, 1)),
            push_withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (push_withdrawn IN (0, 1))
        ) STRICT;
        CREATE INDEX deliveries_message ON deliveries(message_id);
        CREATE INDEX deliveries_in_flight ON deliveries(id) WHERE final = 0;
        CREATE INDEX deliveries_inbox ON deliveries(msisdn) WHERE pushed = 1;
        CREATE INDEX deliveries_msisdn_message ON deliveries(msisdn, message_id);

        -- The append-only delivery timeline (1).
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

        -- The outbox (1; format, last error, abandonment: 3; kind: 26). outbox_due is migration 3's (it replaced
        -- migration 1's, hence after outbox_delivery); outbox_mymsp_pending is migration 26's.
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY,
            delivery_id INTEGER REFERENCES deliveries(id),
            url TEXT NOT NULL,
            payload TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            next_attempt_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            delivered_at INTEGER
            , format TEXT NOT NULL DEFAULT 'json' CHECK (format IN ('json', 'xml')),
            last_error TEXT,
            abandoned_at INTEGER,
            kind TEXT NOT NULL DEFAULT 'statusReport'
                CHECK (kind = 'statusReport' OR kind = 'mymspEvent')) STRICT;
        CREATE INDEX outbox_delivery ON outbox(delivery_id) WHERE delivery_id IS NOT NULL;
        CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL;
        CREATE INDEX outbox_mymsp_pending ON outbox(url, id)
            WHERE kind = 'mymspEvent' AND delivered_at IS NULL AND abandoned_at IS NULL;

        -- Provider references of SMS parts (1; provider_refs_delivery dropped by migration 8).
        CREATE TABLE provider_refs (
            provider TEXT NOT NULL,
            ref TEXT NOT NULL,
            delivery_id INTEGER NOT NULL REFERENCES deliveries(id),
            created_at INTEGER NOT NULL,
            PRIMARY KEY (provider, ref)
        ) STRICT, WITHOUT ROWID;

        -- Idempotency keys (3).
        CREATE TABLE idempotency_keys (
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            key TEXT NOT NULL,
            request_digest TEXT NOT NULL,
            status INTEGER NOT NULL,
            content_type TEXT NOT NULL,
            body BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (account_id, key)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);

        -- Policies stored once (11).
        CREATE TABLE policies (
            id INTEGER PRIMARY KEY,
            body TEXT NOT NULL UNIQUE CHECK (json_valid(body))
        ) STRICT;

        -- SMS pumping protection's prefix blocks (12).
        CREATE TABLE sms_prefix_blocks (
            id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL REFERENCES apps(id),
            prefix TEXT NOT NULL,
            region TEXT NOT NULL,
            since INTEGER NOT NULL,
            until INTEGER NOT NULL,
            sent INTEGER NOT NULL CHECK (sent >= 0),
            verified INTEGER NOT NULL CHECK (verified >= 0),
            lifted_at INTEGER
        ) STRICT;
        CREATE INDEX sms_prefix_blocks_app ON sms_prefix_blocks(app_id, prefix);
        CREATE INDEX sms_prefix_blocks_active ON sms_prefix_blocks(until) WHERE lifted_at IS NULL;

        -- SCG API tokens (15).
        CREATE TABLE scg_tokens (
            id INTEGER PRIMARY KEY,
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            token_sha256 TEXT NOT NULL UNIQUE CHECK (length(token_sha256) = 64),
            label TEXT NOT NULL DEFAULT '',
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        ) STRICT;
        CREATE INDEX scg_tokens_account ON scg_tokens(account_id);

        -- BWMI devices and app settings (23), managed notifications (24) and their live index (27).
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
        CREATE INDEX bwmi_notifications_live ON bwmi_notifications(registration_id, sent_at, expires_at, acked_at)
            WHERE acked_at IS NULL;

        -- myMSP users, recipients (numbered from 2,000,001: the seeded sqlite_sequence row), groups and the msgno
        -- sequence (25).
        CREATE TABLE mymsp_users (
            id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL UNIQUE REFERENCES apps(id),
            name TEXT NOT NULL UNIQUE,
            password_salt TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            event_url TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE mymsp_recipients (
            recipient_id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id INTEGER NOT NULL REFERENCES mymsp_users(id),
            registration_id INTEGER NOT NULL UNIQUE REFERENCES registrations(id),
            spid TEXT NOT NULL CHECK (spid = 'apns' OR spid = 'gcm' OR spid = 'fcm'),
            active INTEGER NOT NULL DEFAULT 1 CHECK (active = 0 OR active = 1),
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX mymsp_recipients_user ON mymsp_recipients(user_id);
        INSERT INTO sqlite_sequence (name, seq) VALUES ('mymsp_recipients', 2000000);

        CREATE TABLE mymsp_groups (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES mymsp_users(id),
            name TEXT NOT NULL,
            short_name TEXT,
            created_at INTEGER NOT NULL,
            UNIQUE (user_id, name)
        ) STRICT;
        CREATE UNIQUE INDEX mymsp_groups_short_name ON mymsp_groups(user_id, short_name) WHERE short_name IS NOT NULL;

        CREATE TABLE mymsp_group_members (
            group_id INTEGER NOT NULL REFERENCES mymsp_groups(id),
            recipient_id INTEGER NOT NULL REFERENCES mymsp_recipients(recipient_id),
            PRIMARY KEY (group_id, recipient_id)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX mymsp_group_members_recipient ON mymsp_group_members(recipient_id);

        CREATE TABLE mymsp_sequence (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            last INTEGER NOT NULL
        ) STRICT;
        INSERT INTO mymsp_sequence (id, last) VALUES (1, 0);

        -- myMSP events, each queued in the outbox by a trigger, and the dead-key trigger on registrations (26).
        CREATE TABLE mymsp_events (
            msgno INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES mymsp_users(id),
            action TEXT NOT NULL CHECK (action = 'ACTION_SUB' OR action = 'ACTION_UNSUB' OR action = 'ACTION_UNSUB_ALL'),
            recipient_id INTEGER NOT NULL,
            destination TEXT NOT NULL,
            subject TEXT NOT NULL,
            created_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX mymsp_events_user ON mymsp_events(user_id, msgno);
        CREATE INDEX mymsp_events_created ON mymsp_events(created_at);

        CREATE TRIGGER mymsp_event_push AFTER INSERT ON mymsp_events
        BEGIN
            INSERT INTO outbox (url, format, kind, payload, next_attempt_at, created_at)
            SELECT u.event_url, 'json', 'mymspEvent',
                   json_object('msgNo', NEW.msgno, 'createdAt', NEW.created_at, 'creatorName', u.name,
                               'initialId', NEW.action, 'originatorText', NEW.recipient_id,
                               'destination', NEW.destination, 'subject', NEW.subject),
                   NEW.created_at, NEW.created_at
            FROM mymsp_users u WHERE u.id = NEW.user_id AND u.event_url IS NOT NULL;
        END;

        CREATE TRIGGER mymsp_dead_key AFTER UPDATE OF status ON registrations
        WHEN NEW.status = 'Invalid' AND OLD.status <> 'Invalid' AND NEW.origin = 'mymsp'
             AND EXISTS (SELECT 1 FROM mymsp_recipients WHERE registration_id = NEW.id AND active = 1)
        BEGIN
            UPDATE mymsp_sequence SET last = last + 1 WHERE id = 1;
            UPDATE mymsp_recipients SET active = 0, updated_at = NEW.updated_at WHERE registration_id = NEW.id;
            INSERT INTO mymsp_events (msgno, user_id, action, recipient_id, destination, subject, created_at)
            SELECT (SELECT last FROM mymsp_sequence WHERE id = 1), r.user_id, 'ACTION_UNSUB_ALL', r.recipient_id, '',
                   'unsub [' || r.recipient_id || ']', NEW.updated_at
            FROM mymsp_recipients r WHERE r.registration_id = NEW.id;
        END;
        """)
}
