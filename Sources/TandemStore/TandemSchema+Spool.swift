/// Migration 7: recipient spools, so a bulk message is accepted with one row instead of a delivery per
/// recipient.
extension TandemSchema {
    /// `message_spools` keeps the accepted recipients of a spooled message (``RecipientSpool``) as one
    /// comma-separated list of E.164 numbers, in request order, and how many of them already have a
    /// delivery (`started`). The drainer advances `started` in the transaction that inserts the deliveries
    /// it starts, and deletes the row with the last of them, so the table holds only waiting work: its
    /// rows in `message_id` order are the drain's queue.
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
