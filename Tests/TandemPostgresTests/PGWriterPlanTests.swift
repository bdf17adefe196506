import Foundation
import Testing
import TandemTestSupport
import TandemCore
import TandemStoreSupport
@testable import TandemPostgres

/// The writer keeps each statement's plan for as long as its connection lives, and the first plan is made when the
/// tables are small (a fresh database). These tests explain every statement of representative commits, under the
/// writer's planner settings (``PGWriter/plannerSettings``), on empty tables — the worst case for a plan that is kept
/// — and refuse any plan that would read a whole table or hash one per commit.
@Suite("PostgreSQL writer plans")
struct PGWriterPlanTests {
    /// A fresh, migrated database, connected as the writer connects.
    private func writerConnection() async throws -> PGConnection {
        let db = try PGConnection(try await PostgresCluster.shared().freshDatabase("plan"))
        try PGSchema.migrate(db)
        for setting in PGWriter.plannerSettings { try db.execute(setting) }
        return db
    }

    /// `statement`'s plan, as EXPLAIN prints it (the statement is planned, not run).
    private func plan(_ statement: PGStatement, on db: PGConnection) throws -> String {
        try db.execute("EXPLAIN " + statement.sql, statement.parameters).rows.compactMap { $0.first ?? nil }.joined(separator: "\n")
    }

    /// The tables whose whole reading per commit would grow with the store.
    private static let growing = ["deliveries", "messages", "delivery_events", "provider_refs", "outbox", "registrations",
                                  "message_spools", "idempotency_keys", "bwmi_notifications"]

    private func expectKeyed(_ plan: String, _ statement: PGStatement) {
        for table in Self.growing {
            #expect(!plan.contains("Seq Scan on \(table) "), "a whole-table scan of \(table):\n\(plan)\n\(statement.sql)")
        }
        #expect(!plan.contains("Hash Join") && !plan.contains("Merge Join"), "a hash or merge join:\n\(plan)\n\(statement.sql)")
    }

    @Test("every statement of a commit — requests, new deliveries, changes, SMS ids, reports, acknowledgements — finds its rows by key")
    func commitStatementsAreKeyed() async throws {
        let db = try await writerConnection()
        let account = ProductToken("00000000-0000-4000-8000-00000000aaaa")!
        let content = try Fixture.content(1, reference: "order-1")
        let record = MessageRecord(content: content, account: account, appKey: nil, bodyType: "Auto", messageType: .default,
                                   allowedChannels: .all, validUntil: nil, customGroupings: ["g"], dcs: nil, richContent: nil,
                                   fallbackFor: nil, createdAt: Fixture.t0)
        let idempotency = IdempotencyRecord(account: account, key: "k-1", requestDigest: "d", status: 200,
                                            contentType: "application/json", body: Array("{}".utf8), createdAt: Fixture.t0)
        let request = AcceptedRequest(messages: [record], idempotency: idempotency,
                                      spools: [RecipientSpool(messageID: content.messageID, recipients: [try Fixture.msisdn(9)])],
                                      spoolProgress: [SpoolProgress(messageID: content.messageID, before: 0, started: 1)])
        let pushed = try Fixture.pushed(to: [Fixture.device(1)], msisdn: Fixture.msisdn(1), content: content)
        let rejected = Fixture.routed(.reject(.noPushableDevice), msisdn: try Fixture.msisdn(2), content: try Fixture.content(2))
        var delivery = pushed.delivery
        let changes = [
            Fixture.change(&delivery, key: DeliveryKey(1), .pushAccepted(try Fixture.device(1)), at: Fixture.t0 + .seconds(1)),
            Fixture.change(&delivery, key: DeliveryKey(1), .readReported(try Fixture.device(1)), at: Fixture.t0 + .seconds(2)),
        ]
        var sms = Fixture.routed(.sms(SMSRoute(reason: .noAppKey, policy: Fixture.otp)), msisdn: try Fixture.msisdn(3), content: try Fixture.content(3)).delivery
        let submitted = Fixture.change(&sms, key: DeliveryKey(2), .smsSubmitted(SMSSubmission(provider: "smpp", references: ["r1", "r2"])),
                                       at: Fixture.t0 + .seconds(1))
        let acknowledgement = BWMIAcknowledgementWrite(delivery: DeliveryKey(1), device: try Fixture.device(1), at: Fixture.t0)
        let plan = try CommitPlan(requests: [request], inserts: [pushed, rejected], changes: changes + [submitted],
                                  acknowledgements: [acknowledgement], snapshots: SnapshotWriter())
        #expect(plan.statements.count >= 10)
        for statement in plan.statements {
            expectKeyed(try self.plan(statement, on: db), statement)
        }
    }

    @Test("late events and a BWMI acknowledgement on its own are keyed too")
    func otherWriterStatementsAreKeyed() async throws {
        let db = try await writerConnection()
        var events = EventRows()
        events.append(.deliveryAcknowledged(try Fixture.device(1)), of: DeliveryKey(1), at: Fixture.t0)
        let acknowledgement = BWMIAcknowledgementWrite(delivery: DeliveryKey(1), device: try Fixture.device(1), at: Fixture.t0)
        for statement in [events.statement, CommitPlan.acknowledgeBWMI(acknowledgement, hybrid: false)] {
            expectKeyed(try plan(statement, on: db), statement)
        }
    }
}
