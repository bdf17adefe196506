/// Migration 5: fewer index updates per delivery write, found by profiling the gateway's accept path.
extension TandemSchema {
    /// - `deliveries_msisdn` indexed every delivery by number; the only query by number is the app inbox,
    ///   which asks for pushed deliveries only (`msisdn = ? AND pushed = 1`). It becomes a partial index on
    ///   pushed deliveries, `deliveries_inbox`: an SMS-only delivery — every bulk SMS — no longer inserts
    ///   into a tree ordered by phone number, which touched a random page per recipient.
    /// - The pending-deadline indexes of migration 1 (`deliveries_pending_push`, `_read`, `_expiry`) were
    ///   never queried: recovery reloads in-flight deliveries through `deliveries_in_flight` and rebuilds
    ///   the timers from their snapshots. Dropped, with their upkeep on every timer change.
    public static let writePath = Migration(version: 5, name: "write path: inbox index on pushed deliveries only", sql: """
        DROP INDEX deliveries_msisdn;
        CREATE INDEX deliveries_inbox ON deliveries(msisdn) WHERE pushed = 1;
        DROP INDEX deliveries_pending_push;
        DROP INDEX deliveries_pending_read;
        DROP INDEX deliveries_pending_expiry;
        """)
}

/// Migration 6: `deliveries` rebuilt without the `json_valid(snapshot)` CHECK.
extension TandemSchema {
    /// SQLite parsed the whole snapshot (~500 bytes of JSON) on every insert and update of a delivery to
    /// evaluate the CHECK: ~1.5 µs each, three times per message (routed, submitted, reported) — about
    /// 5% of the gateway's write path. The snapshot is only ever written by ``SnapshotWriter`` and read
    /// back through `JSONDecoder`, which refuses a malformed one with the row's key (see
    /// `SQLiteDeliveryStore`), so the CHECK guarded nothing the store does not already guard.
    ///
    /// SQLite cannot drop a CHECK in place: the table is rebuilt (the 12-step procedure, with foreign keys
    /// off and checked before COMMIT), keeping every column in its order, every other constraint, the row
    /// ids (the UpdateIDs) and the three indexes.
    public static let snapshotUnchecked = Migration(version: 6, name: "deliveries without the snapshot JSON check", sql: """
        CREATE TABLE deliveries_v6 (
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
        INSERT INTO deliveries_v6 (id, message_id, msisdn, state, status, channel, update_id, push_deadline, read_deadline,
                                   expires_at, final, created_at, updated_at, snapshot, pushed, push_withdrawn)
        SELECT id, message_id, msisdn, state, status, channel, update_id, push_deadline, read_deadline,
               expires_at, final, created_at, updated_at, snapshot, pushed, push_withdrawn
        FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_v6 RENAME TO deliveries;
        CREATE INDEX deliveries_message ON deliveries(message_id);
        CREATE INDEX deliveries_in_flight ON deliveries(id) WHERE final = 0;
        CREATE INDEX deliveries_inbox ON deliveries(msisdn) WHERE pushed = 1;
        """, rebuildsTables: true)
}
