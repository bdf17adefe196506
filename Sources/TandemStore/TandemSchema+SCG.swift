/// Migration 15: the SCG messaging API.
extension TandemSchema {
    /// - `scg_tokens`: bearer tokens of the SCG API, one row per token: its SHA-256 digest (hex, unique),
    ///   never the token; `revoked_at` set once revoked (the row stays as a record).
    /// - `messages.hidden`: 1 once the sender deleted the message through the SCG API; its deliveries carry
    ///   on, only SCG reads leave it out.
    /// - `messages_scg_listing`: an account's visible SCG messages in id order (the listing, newest first,
    ///   and its count); partial, so CM traffic does not maintain it.
    public static let scg = Migration(version: 15, name: "SCG API tokens, hidden messages", sql: """
        CREATE TABLE scg_tokens (
            id INTEGER PRIMARY KEY,
            account_id INTEGER NOT NULL REFERENCES accounts(id),
            token_sha256 TEXT NOT NULL UNIQUE CHECK (length(token_sha256) = 64),
            label TEXT NOT NULL DEFAULT '',
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        ) STRICT;
        CREATE INDEX scg_tokens_account ON scg_tokens(account_id);
        ALTER TABLE messages ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden = 0 OR hidden = 1);
        CREATE INDEX messages_scg_listing ON messages(account_id, id) WHERE api = 'scg' AND hidden = 0;
        """)
}
