import Foundation
import Testing
import TandemCore
import TandemTestSupport

/// What every `OutboxStore` must do: each test runs against SQLite and PostgreSQL.
@Suite("Outbox contract")
struct OutboxContractTests {
    /// Three rejected recipients, final at once at 3 s, 1 s and 2 s: three reports due at those times.
    private func queueReports(_ store: any StoreUnderTest) async throws -> [DeliveryKey] {
        let records = try [3, 1, 2].map { n in
            Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(n), content: try Fixture.content(n), at: Fixture.t0 + .seconds(n))
        }
        return try await store.deliveries.commit(inserts: records, changes: [])
    }

    private func keys(_ items: [OutboxItem]) -> [DeliveryKey] {
        items.compactMap { item in if case .statusReport(let report) = item.content { report.deliveryKey } else { nil } }
    }

    @Test("reports come due oldest first, at most the limit; delivered, rescheduled and abandoned ones move as told",
          arguments: Backend.allCases)
    func dueOrder(_ backend: Backend) async throws {
        let store = try await backend.open()
        let queued = try await queueReports(store)  // due at 3 s, 1 s, 2 s
        let outbox = store.outbox
        #expect(try await outbox.nextDue() == Fixture.t0 + .seconds(1))
        #expect(try await outbox.dueReports(now: Fixture.t0, limit: 10).isEmpty)
        let due = try await outbox.dueReports(now: Fixture.t0 + .seconds(10), limit: 10)
        #expect(keys(due) == [queued[1], queued[2], queued[0]])
        #expect(due.allSatisfy { $0.url == Fixture.webhookURL && $0.attempts == 0 && $0.format == .json })
        #expect(keys(try await outbox.dueReports(now: Fixture.t0 + .seconds(10), limit: 2)) == [queued[1], queued[2]])

        try await outbox.markDelivered(due[0].id, attempts: 1, at: Fixture.t0 + .seconds(11))
        try await outbox.reschedule(due[1].id, attempts: 1, next: Fixture.t0 + .seconds(60), error: "503")
        #expect(keys(try await outbox.dueReports(now: Fixture.t0 + .seconds(12), limit: 10)) == [queued[0]])
        #expect(try await outbox.nextDue() == Fixture.t0 + .seconds(3))
        try await outbox.abandon(due[2].id, attempts: 3, at: Fixture.t0 + .seconds(12), error: "gone")
        #expect(try await outbox.nextDue() == Fixture.t0 + .seconds(60))
        let later = try await outbox.dueReports(now: Fixture.t0 + .seconds(60), limit: 10)
        #expect(keys(later) == [queued[2]] && later.first?.attempts == 1)
        try await outbox.markDelivered(later[0].id, attempts: 2, at: Fixture.t0 + .seconds(61))
        #expect(try await outbox.nextDue() == nil)
        #expect(try await store.count("outbox") == 3, "nothing is deleted")
        await store.close()
    }

    @Test("myMSP events to one URL come due one at a time, in event order, retries included; other URLs do not wait",
          arguments: Backend.allCases)
    func eventOrderPerURL(_ backend: Backend) async throws {
        let store = try await backend.open()
        func event(_ msgno: Int, _ url: String) -> String {
            let payload = #"{"msgNo":\#(msgno),"createdAt":5,"creatorName":"u","initialId":"ACTION_SUB","originatorText":2000001,"destination":"","subject":"sub"}"#
            return "INSERT INTO outbox (url, payload, next_attempt_at, created_at, kind) VALUES ('\(url)', '\(payload)', 5, 5, 'mymspEvent')"
        }
        for (msgno, url) in [(1, "http://a/e"), (2, "http://a/e"), (3, "http://b/e")] { try await store.execute(event(msgno, url)) }
        let outbox = store.outbox
        func due() async throws -> [Int64] {
            try await outbox.dueReports(now: Fixture.t0, limit: 10).compactMap { item in
                if case .mymspEvent(let event) = item.content { event.msgno } else { nil }
            }
        }
        let first = try await outbox.dueReports(now: Fixture.t0, limit: 10)
        #expect(try await due() == [1, 3])
        try await outbox.reschedule(first[0].id, attempts: 1, next: Fixture.t0 + .seconds(60), error: "503")
        #expect(try await due() == [3], "the retried first event still holds the second back")
        #expect(try await outbox.nextDue() == Timestamp(milliseconds: 5), "the third event, to another URL, is due")
        try await outbox.markDelivered(first[1].id, attempts: 1, at: Timestamp(milliseconds: 6))
        #expect(try await outbox.nextDue() == Fixture.t0 + .seconds(60),
                "the relay wakes for the first event's retry: the second, held behind it, is not due before it")
        try await outbox.markDelivered(first[0].id, attempts: 2, at: Timestamp(milliseconds: 11))
        #expect(try await due() == [2])
        #expect(try await outbox.nextDue() == Timestamp(milliseconds: 5))
        await store.close()
    }
}
