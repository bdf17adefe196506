import TandemCore

/// Deleting an app.
///
/// An app can be deleted only while no message names it: messages, their deliveries and their events refer
/// to the app's row and are kept as history, so such an app stays (rotate its secret to lock its SDKs out,
/// or disable its account). Deletion removes, in one transaction, the app's device registrations (cospace
/// tokens, myMSP recipients and BWMI devices included), its cospace users, its myMSP user with its groups and
/// events, its BWMI settings, its SMS prefix blocks and the app itself; nothing else refers to an app. Event posts
/// already queued in the outbox stay. Once committed, the registration cache is cleared; requests signed for the
/// deleted app then fail (its key is unknown).
extension Store {
    public func deleteApp(key: AppKey) async throws(StoreError) -> AppDeletion {
        // Its registrations (deleted with it) are forgotten once committed (or failed).
        defer { registrations.invalidateAll() }
        return try await write { (db: Connection) throws(StoreError) -> AppDeletion in
            guard let appID = try db.scalar("SELECT id FROM apps WHERE app_key = ?", [.text(key.text)], as: Int64.self) else {
                return .notFound
            }
            let messages = try db.scalar("SELECT count(*) FROM messages WHERE app_id = ?", [.integer(appID)], as: Int.self) ?? 0
            guard messages == 0 else { return .inUse(messages: messages) }
            try db.run("DELETE FROM sms_prefix_blocks WHERE app_id = ?", [.integer(appID)])
            try Self.deleteMyMSPUser(app: appID, on: db)
            try db.run("DELETE FROM bwmi_devices WHERE app_id = ?", [.integer(appID)])  // before their registrations
            try db.run("DELETE FROM bwmi_apps WHERE app_id = ?", [.integer(appID)])
            let registrations = try db.run("DELETE FROM registrations WHERE app_id = ?", [.integer(appID)])
            try db.run("DELETE FROM app_users WHERE app_id = ?", [.integer(appID)])  // after their tokens (registrations)
            try db.run("DELETE FROM apps WHERE id = ?", [.integer(appID)])
            return .deleted(registrations: registrations)
        }
    }

    /// The app's myMSP user and every row that refers to it or to the app's registrations, children first.
    private static func deleteMyMSPUser(app appID: Int64, on db: Connection) throws(StoreError) {
        let users = "SELECT id FROM mymsp_users WHERE app_id = ?"
        try db.run("DELETE FROM mymsp_group_members WHERE group_id IN (SELECT id FROM mymsp_groups WHERE user_id IN (\(users)))",
                   [.integer(appID)])
        try db.run("DELETE FROM mymsp_groups WHERE user_id IN (\(users))", [.integer(appID)])
        try db.run("DELETE FROM mymsp_events WHERE user_id IN (\(users))", [.integer(appID)])
        try db.run("DELETE FROM mymsp_recipients WHERE user_id IN (\(users))", [.integer(appID)])
        try db.run("DELETE FROM mymsp_users WHERE app_id = ?", [.integer(appID)])
    }
}
