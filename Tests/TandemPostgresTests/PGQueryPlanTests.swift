import Testing
import TandemTestSupport
import TandemCore
@testable import TandemPostgres

/// Plans of statements whose shape once made PostgreSQL's generic plan — the one a prepared statement settles on —
/// walk every row of an app. Each is checked as the server runs it after a few executions (`force_generic_plan`),
/// on a table large enough that a walk costs more than an index.
@Suite("PostgreSQL generic plans of the per-request lookups")
struct PGQueryPlanTests {
    @Test("a BWMI device lookup by token, phone or email goes through its index, not through every device of the app")
    func bwmiDeviceLookups() async throws {
        let db = try PGConnection(try await PostgresCluster.shared().freshDatabase("plans"))
        try PGSchema.migrate(db)
        let app = AppKey(try #require(GUID("6f1f8a3c-2b4d-4e5f-8a9b-0c1d2e3f4a5b")))
        try db.execute("INSERT INTO accounts (name, product_token, created_at) VALUES ('a', 't', 1)")
        try db.execute("INSERT INTO apps (account_id, name, app_key, app_secret, created_at) VALUES (1, 'p', $1, 's', 1)", [app.text])
        try db.executeScript("""
            INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
            SELECT 'dev-' || i, 1, 'Android', 'token-' || i, 'Unverified', 'bwmi', 0, 0 FROM generate_series(1, 2000) i;
            INSERT INTO bwmi_devices (registration_id, app_id, phone, email)
            SELECT id, app_id, '+3161' || lpad(id::text, 7, '0'), 'u' || id || '@example.test' FROM registrations;
            ANALYZE;
            SET plan_cache_mode = force_generic_plan;
            """)
        for (condition, value, index) in [("r.push_token = $2", "token-5", "registrations_app_push_token"),
                                          ("d.phone = $2", "+31610000005", "bwmi_devices_phone"),
                                          ("d.email = $2", "u5@example.test", "bwmi_devices_email")] {
            let statement = PGStore.bwmiDevicesStatement(app: app, condition: condition, value)
            try db.execute("PREPARE lookup(text, text) AS \(statement.sql)")
            let plan = try db.execute("EXPLAIN EXECUTE lookup('\(app.text)', '\(value)')").rows.compactMap { $0.first ?? nil }
                .joined(separator: "\n")
            try db.execute("DEALLOCATE lookup")
            #expect(plan.contains(index), "\(condition):\n\(plan)")
            #expect(!plan.contains("Seq Scan on bwmi_devices") && !plan.contains("Seq Scan on registrations")
                    && !plan.contains("Memoize"), "\(condition):\n\(plan)")
        }
    }
}
