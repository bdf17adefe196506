/// Migrations 17 and 18: cospace's push API — app users with bearer tokens, and their push tokens as
/// registrations of the app.
extension TandemSchema {
    /// - `app_users`: the users of an app that hold push tokens through `/api/push`, each named by an opaque
    ///   id (a UUID, unique within the app) and authenticated by a bearer token stored only as its SHA-256
    ///   (`token_hash`, lower-case hex, unique). A revoked user (`revoked_at` set) keeps its row, so the id can
    ///   be added again with a new token.
    public static let appUsers = Migration(version: 17, name: "cospace: app users with bearer tokens", sql: """
        CREATE TABLE app_users (
            id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL REFERENCES apps(id),
            user_id TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        ) STRICT;
        CREATE UNIQUE INDEX app_users_app_user ON app_users(app_id, user_id);
        """)

    /// - `registrations.owner_user`: the app user a cospace token belongs to (origin `cospace`); NULL for
    ///   every other registration.
    /// - `registrations.apns_sandbox`: the registration's own APNs environment (1 sandbox, 0 production);
    ///   NULL uses the app's credentials (a cospace token's `sandbox`, an SDK install's `Development`).
    /// - `registrations.apns_topic`, `registrations.application_id`: a cospace APNs token's topic (NULL: the
    ///   app's) and the application id (team id and bundle id) it was added with.
    public static let cospaceRegistrations = Migration(version: 18, name: "cospace: tokens as registrations, per-registration APNs environment", sql: """
        ALTER TABLE registrations ADD COLUMN owner_user INTEGER REFERENCES app_users(id);
        ALTER TABLE registrations ADD COLUMN apns_sandbox INTEGER CHECK (apns_sandbox IS NULL OR apns_sandbox = 0 OR apns_sandbox = 1);
        ALTER TABLE registrations ADD COLUMN apns_topic TEXT;
        ALTER TABLE registrations ADD COLUMN application_id TEXT;
        CREATE INDEX registrations_owner_user ON registrations(owner_user) WHERE owner_user IS NOT NULL;
        """)
}
