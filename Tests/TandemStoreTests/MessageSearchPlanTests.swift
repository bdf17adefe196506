import Testing
import TandemCore
@testable import TandemStore

/// The operator's message search reads indexes, never a whole table (`Store+MessageSearch.swift`).
@Suite("Message search query plans")
struct MessageSearchPlanTests {
    static func plan(_ db: Connection, _ sql: String, _ bindings: [SQLValue]) throws -> String {
        try db.query("EXPLAIN QUERY PLAN " + sql, bindings)
            .map { row throws(StoreError) in try row.get("detail", as: String.self) }.joined(separator: " | ")
    }

    @Test("by number: the newest messages come from deliveries_msisdn_message (migration 20), not a scan")
    func byNumber() throws {
        let db = try Connection(path: ":memory:")
        try db.migrate(TandemSchema.migrations)
        let plan = try Self.plan(db, "SELECT DISTINCT message_id FROM deliveries WHERE msisdn = ? ORDER BY message_id DESC LIMIT ?",
                                 [.text("+31612345678"), .integer(20)])
        #expect(plan.contains("USING COVERING INDEX deliveries_msisdn_message"), "plan: \(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "plan: \(plan)")
    }

    @Test("by reference across accounts: messages_account_reference, once per account")
    func byReference() throws {
        let db = try Connection(path: ":memory:")
        try db.migrate(TandemSchema.migrations)
        let plan = try Self.plan(db, "SELECT id FROM messages m WHERE m.account_id IN (SELECT id FROM accounts) AND m.reference = ?",
                                 [.text("r")])
        #expect(plan.contains("messages_account_reference"), "plan: \(plan)")
        #expect(!plan.contains("SCAN m"), "plan: \(plan)")
    }
}
