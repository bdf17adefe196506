/// Migration 13: what the one intake stores for every sender API.
///
/// - `messages.api`: the API a message came through (`cm` for every older row); `messages.presentation`:
///   the message's ``PushPresentation`` as JSON, NULL when empty (every CM message without `options`), so a
///   push resumed after a crash renders the same payload; `messages.extra`: API-specific fields as compact
///   JSON (SCG's `external_id`, campaign, …), stored and returned, not acted on by the engine.
/// - `apps.sender_id`: another name an app is addressed by (SCG's `psh:…@<sender>@…`, cospace's FCM sender
///   id), unique within its account.
/// - `registrations.origin`: how a registration came to be (`cm`: an SDK install, verified by PIN or not;
///   `pushAddress`: a token a sender addressed directly; later APIs add theirs). Only `cm` registrations
///   verify numbers, so only they route MSISDN messages.
extension TandemSchema {
    public static let intake = Migration(version: 13, name: "intake: message API, presentation, app sender ids, registration origins", sql: """
        ALTER TABLE messages ADD COLUMN api TEXT NOT NULL DEFAULT 'cm';
        ALTER TABLE messages ADD COLUMN presentation TEXT CHECK (presentation IS NULL OR json_valid(presentation));
        ALTER TABLE messages ADD COLUMN extra TEXT CHECK (extra IS NULL OR json_valid(extra));
        ALTER TABLE apps ADD COLUMN sender_id TEXT;
        CREATE UNIQUE INDEX apps_sender_id ON apps(account_id, sender_id) WHERE sender_id IS NOT NULL;
        ALTER TABLE registrations ADD COLUMN origin TEXT NOT NULL DEFAULT 'cm';
        """)
}
