/// Migration 4: what the device API needs on top of migration 3.
extension TandemSchema {
    /// - `registrations` gains the outstanding PIN challenge: `pin_nonce` (the PIN is derived from it with a
    ///   server key the database does not hold, so no PIN is stored), `pin_msisdn` (the number it was sent
    ///   to) and `pin_issued_at`; `pin_expires_at` and `pin_attempts` (migration 1) complete it. The
    ///   column `pin_hash` of migration 1 is unused and stays NULL.
    /// - `deliveries` gains two flags kept in sync with the snapshot, for the app inbox query:
    ///   `pushed` (the router chose a push: the message belongs in the inbox) and `push_withdrawn`
    ///   (terminated by a manual fallback, withdrawn, or expired unacknowledged: an OTP in that state is
    ///   listed as Cancelled, without its body). Existing rows are filled from their snapshots.
    public static let deviceAPI = Migration(version: 4, name: "device API: PIN challenges, inbox flags", sql: """
        ALTER TABLE registrations ADD COLUMN pin_nonce TEXT;
        ALTER TABLE registrations ADD COLUMN pin_msisdn TEXT;
        ALTER TABLE registrations ADD COLUMN pin_issued_at INTEGER;

        ALTER TABLE deliveries ADD COLUMN pushed INTEGER NOT NULL DEFAULT 0 CHECK (pushed IN (0, 1));
        ALTER TABLE deliveries ADD COLUMN push_withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (push_withdrawn IN (0, 1));
        UPDATE deliveries
        SET pushed = (json_extract(snapshot, '$.plan') IS NOT NULL),
            push_withdrawn = (coalesce(json_extract(snapshot, '$.pushTerminated'), 0) = 1
                              OR coalesce(json_extract(snapshot, '$.resolution'), '') IN ('withdrawn', 'lifetimeExpired'))
        WHERE snapshot IS NOT NULL;
        """)
}
