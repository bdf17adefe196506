import TandemCore

/// Deleting an app on PostgreSQL, as SQLite's `Store+AppDeletion.swift`: only while no message names it; then, in
/// one transaction, its registrations (cospace tokens, myMSP recipients and BWMI devices included), cospace users,
/// myMSP user with its groups and events, BWMI settings, SMS prefix blocks and the app itself.
///
/// One writer job whose statements need no earlier answer: the first reads whether the app exists and how many
/// messages name it (its row locked against a concurrent change), and every delete after it applies only to an
/// app no message names, so an app in use keeps everything.
extension PGStore {
    public func deleteApp(key: AppKey) async throws(PGError) -> AppDeletion {
        let app = "(SELECT id FROM apps WHERE app_key = $1 AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.app_id = apps.id))"
        let users = "(SELECT id FROM mymsp_users WHERE app_id = \(app))"
        let deletes = [
            "DELETE FROM sms_prefix_blocks WHERE app_id = \(app)",
            "DELETE FROM mymsp_group_members WHERE group_id IN (SELECT id FROM mymsp_groups WHERE user_id IN \(users))",
            "DELETE FROM mymsp_groups WHERE user_id IN \(users)",
            "DELETE FROM mymsp_events WHERE user_id IN \(users)",
            "DELETE FROM mymsp_recipients WHERE user_id IN \(users)",
            "DELETE FROM mymsp_users WHERE app_id = \(app)",
            "DELETE FROM bwmi_devices WHERE app_id = \(app)",  // before their registrations
            "DELETE FROM bwmi_apps WHERE app_id = \(app)",
            "DELETE FROM registrations WHERE app_id = \(app)",
            "DELETE FROM app_users WHERE app_id = \(app)",  // after their tokens (registrations)
            "DELETE FROM apps WHERE id = \(app)",
        ]
        let registrationsIndex = deletes.firstIndex { $0.hasPrefix("DELETE FROM registrations") }! + 1
        let results = try await write([PGStatement("""
            SELECT p.id, (SELECT count(*) FROM messages WHERE app_id = p.id) FROM apps p WHERE p.app_key = $1 FOR UPDATE
            """, [key.text])] + deletes.map { PGStatement($0, [key.text]) })
        guard let row = results[0].rows.first else { return .notFound }
        let messages = Int(row[1] ?? "") ?? 0
        guard messages == 0 else { return .inUse(messages: messages) }
        return .deleted(registrations: results[registrationsIndex].changedRows)
    }
}
