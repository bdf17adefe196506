/// Migration 7: recipient spools, so a bulk message is accepted with one row instead of a delivery per
/// recipient.
extension TandemSchema {
    /// `message_spools` keeps the accepted recipients of a spooled message (``RecipientSpool``) as one
    /// comma-separated list of E.164 numbers, in request order, and how many of them already have a
    /// delivery (`started`). The drainer advances `started` in the transaction that inserts the deliveries
    /// it starts, and deletes the row with the last of them, so the table holds only waiting work (the drain's
    /// queues, by sending account: migration 10).
    public static let spool = Migration(version: 7, name: "recipient spools for bulk messages", sql: """
        CREATE TABLE message_spools (
            message_id INTEGER PRIMARY KEY REFERENCES messages(id),
            recipients TEXT NOT NULL,
            total INTEGER NOT NULL CHECK (total > 0),
            started INTEGER NOT NULL DEFAULT 0 CHECK (started >= 0 AND started < total)
        ) STRICT;
        """)
}

/// Migration 8: two indexes no statement uses, dropped from the write path.
extension TandemSchema {
    /// - `messages_account_created (account_id, created_at)` was meant for listing an account's messages by
    ///   time; nothing lists them that way (lookups go by id or reference, which have their own indexes), and
    ///   message ids and row ids are time-ordered already. One B-tree insert less per message.
    /// - `provider_refs_delivery (delivery_id)` would serve foreign-key checks when deliveries are deleted;
    ///   nothing deletes them. One B-tree insert less per SMS part.
    /// Retention, when it comes, deletes by row id (time order) and adds back what its deletes need.
    public static let unusedIndexes = Migration(version: 8, name: "unused indexes dropped", sql: """
        DROP INDEX messages_account_created;
        DROP INDEX provider_refs_delivery;
        """)
}

/// Migration 9: `messages` rebuilt with its `message_type` CHECK written as comparisons.
extension TandemSchema {
    /// SQLite evaluates `x IN (a, b, c)` — a list of three or more constants — by building a temporary index
    /// of the list, once per statement execution: every message insert opened, filled and closed a B-tree
    /// for `CHECK (message_type IN ('Default', 'OTP', 'Critical'))` (found by profiling; the writer spends
    /// ~1.9 µs less per single-recipient message without it, alternating A/B runs).
    /// `message_type = 'Default' OR … = 'OTP' OR … = 'Critical'` allows the same values with three comparisons.
    /// (Two-value lists such as `final IN (0, 1)` are compared directly already.)
    ///
    /// The table is rebuilt (the 12-step procedure, foreign keys off and checked before COMMIT), keeping every
    /// column in its order, the row ids (deliveries point at them), the other constraints and the indexes
    /// (the UNIQUE `message_id`, and `messages_idempotency`, `messages_app`, `messages_account_reference`).
    public static let messageTypeComparisons = Migration(version: 9, name: "messages: message_type CHECK without IN", sql: """
        CREATE TABLE messages_v9 (
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
        ) STRICT;
        INSERT INTO messages_v9 (id, message_id, account_id, app_id, idempotency_key, sender, body, body_type, reference,
                                 message_type, allowed_channels, validity_until, custom_grouping, custom_grouping2,
                                 custom_grouping3, dcs, rich_content, created_at, fallback_for)
        SELECT id, message_id, account_id, app_id, idempotency_key, sender, body, body_type, reference,
               message_type, allowed_channels, validity_until, custom_grouping, custom_grouping2,
               custom_grouping3, dcs, rich_content, created_at, fallback_for
        FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages_v9 RENAME TO messages;
        CREATE UNIQUE INDEX messages_idempotency ON messages(account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
        CREATE INDEX messages_app ON messages(app_id) WHERE app_id IS NOT NULL;
        CREATE INDEX messages_account_reference ON messages(account_id, reference) WHERE reference IS NOT NULL;
        """, rebuildsTables: true)
}

/// Migration 10: spools indexed by their queue (the sending account), for the drainer's turns.
extension TandemSchema {
    /// The drainer takes the next account's oldest spool after the last one served. Found through `messages`,
    /// that meant joining and sorting every waiting spool on each chunk (thousands of 1,000-recipient spools
    /// after a burst of bulk requests: it halved both the accept and the drain rate). `account_id` is copied
    /// into the spool (0 when the message has none) and `message_spools_queue` orders spools by account, then
    /// age, so the next spool is one index step away.
    public static let spoolQueues = Migration(version: 10, name: "spools indexed by sending account", sql: """
        ALTER TABLE message_spools ADD COLUMN account_id INTEGER NOT NULL DEFAULT 0;
        UPDATE message_spools
        SET account_id = coalesce((SELECT m.account_id FROM messages m WHERE m.id = message_spools.message_id), 0);
        CREATE INDEX message_spools_queue ON message_spools(account_id, message_id);
        """)
}
