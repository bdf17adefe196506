import TandemCore

/// Idempotency keys as unique rows (``IdempotencyKeys``): a claim is a row with `status` 0, completed by the
/// accepted request's transaction (`SQLiteDeliveryStore`), removed when its request stored nothing.
extension Store: IdempotencyKeys {
    public func claimIdempotencyKey(account: ProductToken, key: String, digest: String,
                                    at now: Timestamp) async throws(StoreError) -> IdempotencyClaimOutcome {
        try await write { (db: Connection) throws(StoreError) -> IdempotencyClaimOutcome in
            let inserted = try db.run("""
                INSERT INTO idempotency_keys (account_id, key, request_digest, status, content_type, body, created_at)
                VALUES ((SELECT id FROM accounts WHERE product_token = ?), ?, ?, 0, '', X'', ?)
                ON CONFLICT (account_id, key) DO NOTHING
                """, [.text(account.text), .text(key), .text(digest), .integer(now.milliseconds)])
            if inserted == 1 { return .claimed }
            guard let held = try Self.idempotencyRecord(account: account, key: key, on: db) else {
                throw .decoding(column: "idempotency_keys", message: "key neither claimed nor held")
            }
            return .held(held)
        }
    }

    public func takeOverIdempotencyKey(account: ProductToken, key: String, claimedAt: Timestamp,
                                       at now: Timestamp) async throws(StoreError) -> Bool {
        try await write { (db: Connection) throws(StoreError) -> Bool in
            try db.run("""
                UPDATE idempotency_keys SET created_at = ?
                WHERE account_id = (SELECT id FROM accounts WHERE product_token = ?) AND key = ? AND status = 0 AND created_at = ?
                """, [.integer(now.milliseconds), .text(account.text), .text(key), .integer(claimedAt.milliseconds)]) == 1
        }
    }

    public func releaseIdempotencyKey(account: ProductToken, key: String) async throws(StoreError) {
        try await write { (db: Connection) throws(StoreError) in
            try db.run("""
                DELETE FROM idempotency_keys
                WHERE account_id = (SELECT id FROM accounts WHERE product_token = ?) AND key = ? AND status = 0
                """, [.text(account.text), .text(key)])
        }
    }

    static func idempotencyRecord(account: ProductToken, key: String, on db: Connection) throws(StoreError) -> IdempotencyRecord? {
        guard let row = try db.queryFirst("""
            SELECT k.request_digest, k.status, k.content_type, k.body, k.created_at
            FROM idempotency_keys k JOIN accounts a ON a.id = k.account_id
            WHERE a.product_token = ? AND k.key = ?
            """, [.text(account.text), .text(key)]) else { return nil }
        return IdempotencyRecord(account: account, key: key, requestDigest: try row.get("request_digest", as: String.self),
                                 status: Int(try row.get("status", as: Int64.self)),
                                 contentType: try row.get("content_type", as: String.self),
                                 body: try row.get("body", as: [UInt8].self),
                                 createdAt: Timestamp(milliseconds: try row.get("created_at", as: Int64.self)))
    }
}
