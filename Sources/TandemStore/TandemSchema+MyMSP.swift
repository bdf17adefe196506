/// Migrations 25 and 26: myMSP Device Push Notifications (the `/external/notifications/…` API).
///
/// Migration 25 — accounts and recipients:
/// - `mymsp_users`: a myMSP `user` bound to one app (one user per app), its salted password hash and the
///   URL its events are POSTed to (NULL: poll only);
/// - `mymsp_recipients`: a recipient is a registration of the user's app (`registrations.origin = 'mymsp'`)
///   with a numeric id, increasing from 2,000,001, and the `spid` it subscribed with; `active` is myMSP's
///   own flag (`unsubscribeall` clears it, `updatekey` sets it); a dead key clears it too (migration 26);
/// - `mymsp_groups` / `mymsp_group_members`: named recipient sets per user (name and optional short name);
/// - `mymsp_sequence`: the last msgno of the one space notifications and events share.
///
/// Migration 26 — events:
/// - `mymsp_events`: one row per `ACTION_SUB`/`ACTION_UNSUB`/`ACTION_UNSUB_ALL`, numbered from
///   `mymsp_sequence`; kept until purged by age;
/// - `outbox.kind`: `statusReport` (every older row) or `mymspEvent` (the event's form fields as JSON in
///   `payload`); each event row is queued for its user's event URL by a trigger, in the same transaction;
/// - a dead key: when the store marks a `mymsp` registration Invalid (the lifecycle's
///   `invalidateRegistration`, applied in `SQLiteDeliveryStore`), the trigger `mymsp_dead_key` makes the
///   one reaction — the recipient inactive and an `ACTION_UNSUB_ALL` event with an empty destination and
///   subject `unsub [<recipientid>]`. It fires only for a recipient still active, so an `unsubscribeall`
///   (which clears `active` first) never makes a second event.
extension TandemSchema {
    public static let mymspAccounts = Migration(version: 25, name: "myMSP users, recipients, groups, msgno sequence", sql: """
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
        """)

    public static let mymspEvents = Migration(version: 26, name: "myMSP events, outbox kind, dead-key trigger", sql: """
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

        ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'statusReport'
            CHECK (kind = 'statusReport' OR kind = 'mymspEvent');
        CREATE INDEX outbox_mymsp_pending ON outbox(url, id)
            WHERE kind = 'mymspEvent' AND delivered_at IS NULL AND abandoned_at IS NULL;

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
