/// Migration 3: what the CM gateway, status reports and idempotency need on top of migration 2.
extension TandemSchema {
    /// - `accounts` gains the status-report webhook: `webhook_url` (NULL: no reports) and
    ///   `webhook_format` (`json` or `xml`, CM's two status-report shapes).
    /// - `messages` gains `fallback_for` (the GUID of the earlier message an OTP manual-fallback SMS
    ///   supersedes) and an index for looking messages up by the sender's `reference`.
    /// - `idempotency_keys` keeps the first response to each `(account, Idempotency-Key)`, with a digest
    ///   of the request that used it; rows older than the retention are purged by the server.
    /// - `outbox` gains `format`, `last_error` and `abandoned_at` (set when retries gave up); a report is
    ///   queued only for an account with a webhook, with the URL and format in force when it is queued.
    public static let gateway = Migration(version: 3, name: "gateway, status reports, idempotency", sql: """
        ALTER TABLE accounts ADD COLUMN webhook_url TEXT;
        ALTER TABLE accounts ADD COLUMN webhook_format TEXT NOT NULL DEFAULT 'json'
            CHECK (webhook_format IN ('json', 'xml'));

        ALTER TABLE messages ADD COLUMN fallback_for TEXT;
        CREATE INDEX messages_account_reference ON messages(account_id, reference) WHERE reference IS NOT NULL;

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

        ALTER TABLE outbox ADD COLUMN format TEXT NOT NULL DEFAULT 'json' CHECK (format IN ('json', 'xml'));
        ALTER TABLE outbox ADD COLUMN last_error TEXT;
        ALTER TABLE outbox ADD COLUMN abandoned_at INTEGER;
        DROP INDEX outbox_due;
        CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL;
        """)
}
