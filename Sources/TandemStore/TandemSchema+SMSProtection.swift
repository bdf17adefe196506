/// Migration 12: the defence against SMS pumping and PIN strength.
extension TandemSchema {
    /// - `apps.sms_protection`: the app's ``SMSProtection`` as JSON (mode, country rule, PIN length); NULL
    ///   for the defaults (enforce, anywhere, the configured PIN length).
    /// - `accounts.sms_countries`: the account's ``SMSCountryPolicy`` for gateway SMS as JSON; NULL: anywhere.
    /// - `registrations.pin_length`: the digits of the outstanding PIN, fixed when it was issued; NULL for a
    ///   challenge issued before this migration (it has the configured length).
    /// - `sms_prefix_blocks`: conversion blocks, one row per block; a block is active while `until` is
    ///   later than now and `lifted_at` is NULL. Lifted and expired rows stay as a record.
    public static let smsProtection = Migration(version: 12, name: "SMS pumping protection, PIN length", sql: """
        ALTER TABLE apps ADD COLUMN sms_protection TEXT CHECK (sms_protection IS NULL OR json_valid(sms_protection));
        ALTER TABLE accounts ADD COLUMN sms_countries TEXT CHECK (sms_countries IS NULL OR json_valid(sms_countries));
        ALTER TABLE registrations ADD COLUMN pin_length INTEGER CHECK (pin_length IS NULL OR pin_length BETWEEN 4 AND 10);

        CREATE TABLE sms_prefix_blocks (
            id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL REFERENCES apps(id),
            prefix TEXT NOT NULL,
            region TEXT NOT NULL,
            since INTEGER NOT NULL,
            until INTEGER NOT NULL,
            sent INTEGER NOT NULL CHECK (sent >= 0),
            verified INTEGER NOT NULL CHECK (verified >= 0),
            lifted_at INTEGER
        ) STRICT;
        CREATE INDEX sms_prefix_blocks_app ON sms_prefix_blocks(app_id, prefix);
        CREATE INDEX sms_prefix_blocks_active ON sms_prefix_blocks(until) WHERE lifted_at IS NULL;
        """)
}
