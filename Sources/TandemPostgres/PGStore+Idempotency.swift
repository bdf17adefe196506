import TandemCore

/// Idempotency keys as unique rows (``IdempotencyKeys``), as SQLite's `Store+Idempotency.swift`: a claim is a row
/// with `status` 0, completed by the accepted request's transaction (``PGDeliveryStore``), removed when its
/// request stored nothing. An account that does not exist fails the claim (SQLSTATE 23502: no account row).
extension PGStore: IdempotencyKeys {
    public func claimIdempotencyKey(account: ProductToken, key: String, digest: String,
                                    at now: Timestamp) async throws(PGError) -> IdempotencyClaimOutcome {
        // The claim, then the row that holds the key: this claim's when it inserted one, else the holder's.
        let results = try await write([
            PGStatement("""
                INSERT INTO idempotency_keys (account_id, key, request_digest, status, content_type, body, created_at)
                VALUES ((SELECT id FROM accounts WHERE product_token = $1), $2, $3, 0, '', ''::bytea, $4)
                ON CONFLICT (account_id, key) DO NOTHING RETURNING 1
                """, [account.text, key, digest, now.pgText]),
            PGStatement(Self.idempotencyRecordSQL, [account.text, key]),
        ])
        if results[0].rows.count == 1 { return .claimed }
        guard let held = try Self.idempotencyRecord(results[1], account: account, key: key) else {
            throw .client("idempotency_keys: key neither claimed nor held")
        }
        return .held(held)
    }

    public func takeOverIdempotencyKey(account: ProductToken, key: String, claimedAt: Timestamp,
                                       at now: Timestamp) async throws(PGError) -> Bool {
        try await write([PGStatement("""
            UPDATE idempotency_keys SET created_at = $1
            WHERE account_id = (SELECT id FROM accounts WHERE product_token = $2) AND key = $3 AND status = 0 AND created_at = $4
            """, [now.pgText, account.text, key, claimedAt.pgText])])[0].changedRows == 1
    }

    public func releaseIdempotencyKey(account: ProductToken, key: String) async throws(PGError) {
        _ = try await write([PGStatement("""
            DELETE FROM idempotency_keys
            WHERE account_id = (SELECT id FROM accounts WHERE product_token = $1) AND key = $2 AND status = 0
            """, [account.text, key])])
    }

    /// Deletes idempotency keys created before `cutoff`; returns how many.
    @discardableResult
    public func purgeIdempotencyKeys(createdBefore cutoff: Timestamp) async throws(PGError) -> Int {
        try await write([PGStatement("DELETE FROM idempotency_keys WHERE created_at < $1", [cutoff.pgText])])[0].changedRows
    }

    /// The stored row of `(account, key)`, if any (for tests and the claim).
    func idempotencyRecord(account: ProductToken, key: String) async throws(PGError) -> IdempotencyRecord? {
        let result = try await read { db throws(PGError) in try db.execute(Self.idempotencyRecordSQL, [account.text, key]) }
        return try Self.idempotencyRecord(result, account: account, key: key)
    }

    private static let idempotencyRecordSQL = """
        SELECT k.request_digest, k.status, k.content_type, k.body, k.created_at
        FROM idempotency_keys k JOIN accounts a ON a.id = k.account_id
        WHERE a.product_token = $1 AND k.key = $2
        """

    private static func idempotencyRecord(_ result: PGResult, account: ProductToken, key: String) throws(PGError) -> IdempotencyRecord? {
        guard let row = result.rows("idempotency key \(key)").first else { return nil }
        return IdempotencyRecord(account: account, key: key, requestDigest: try row.text(0), status: Int(try row.int64(1)),
                                 contentType: try row.text(2), body: try row.bytes(3),
                                 createdAt: Timestamp(milliseconds: try row.int64(4)))
    }
}
