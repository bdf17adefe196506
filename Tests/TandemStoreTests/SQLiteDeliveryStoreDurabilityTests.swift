import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore

@Suite("SQLite delivery store: atomicity, concurrency, reopening")
struct SQLiteDeliveryStoreDurabilityTests {
    @Test("a commit whose change names a missing key rolls back entirely, inserts and effects included")
    func missingKeyRollsBack() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            let kept = try Fixture.pushed(to: [Fixture.device(1)], msisdn: Fixture.msisdn(1), content: Fixture.content(1))
            let keptKey = try #require(try await deliveries.commit(inserts: [kept], changes: []).first)
            let before = try deliveryTableCounts(store)

            let rejected = Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(2), content: try Fixture.content(2))
            var ghost = kept.delivery
            let change = Fixture.change(&ghost, key: DeliveryKey(9_999), .readReported(try Fixture.device(1)), at: Fixture.t0)
            #expect(change.effects.report == .read)
            let error = await #expect(throws: StoreError.self) {
                try await deliveries.commit(inserts: [rejected], changes: [change])
            }
            #expect(error?.isForeignKeyViolation == true)
            #expect(try deliveryTableCounts(store) == before)

            let late = await #expect(throws: StoreError.self) {
                try await deliveries.appendLateEvents([(keptKey, .expired), (DeliveryKey(9_999), .expired)], at: Fixture.t0)
            }
            #expect(late?.isForeignKeyViolation == true)  // and the event for the existing delivery is not kept either
            #expect(try deliveryTableCounts(store) == before)
            #expect(try await deliveries.loadInFlight().map(\.delivery) == [kept.delivery])
            await store.close()
        }
    }

    @Test("a failure in the last statement of a commit (the outbox row) leaves no message, delivery or event")
    func lateFailureRollsBack() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            try await store.write { db throws(StoreError) in
                try db.run("CREATE TRIGGER refuse_outbox BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'outbox refused'); END")
            }
            let before = try deliveryTableCounts(store)
            let rejected = Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(2), content: try Fixture.content(2))
            let error = await #expect(throws: StoreError.self) {
                try await deliveries.commit(inserts: [rejected], changes: [])
            }
            #expect(error?.resultCode == .constraintTrigger)
            #expect(try deliveryTableCounts(store) == before)
            await store.close()
        }
    }

    @Test("a failing commit batched with successful ones fails alone; its batch-mates commit")
    func failureInsideBatch() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/tandem.sqlite", commitWindow: .seconds(30)))
            let deliveries = SQLiteDeliveryStore(store: store)
            let jobs = 8
            let blocker = await holdWriter(store, untilQueued: jobs)

            let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for n in 0..<jobs {
                    let record = try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
                    var ghost = record.delivery
                    let change = Fixture.change(&ghost, key: DeliveryKey(Int64(100_000 + n)), .expired, at: Fixture.t0)
                    let failing = n % 3 == 0
                    group.addTask {
                        do {
                            _ = try await deliveries.commit(inserts: [record], changes: failing ? [change] : [])
                            return (n, true)
                        } catch {
                            return (n, false)
                        }
                    }
                }
                var outcomes: [Int: Bool] = [:]
                for try await (n, succeeded) in group { outcomes[n] = succeeded }
                return outcomes
            }
            try await blocker.value
            #expect(outcomes == Dictionary(uniqueKeysWithValues: (0..<jobs).map { ($0, $0 % 3 != 0) }))
            #expect(store.writerStatistics.largestBatch >= jobs)
            let committed = (0..<jobs).filter { $0 % 3 != 0 }.count
            #expect(try deliveryTableCounts(store) == ["messages": committed, "deliveries": committed,
                                                        "delivery_events": committed, "outbox": 0])
            await store.close()
        }
    }

    @Test("on one chain, a failed commit fails the later ones unapplied — in its transaction, or in a later one after its batch aborted")
    func brokenChainFailsLaterCommits() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/tandem.sqlite", commitWindow: .seconds(30)))
            let deliveries = SQLiteDeliveryStore(store: store)
            func record(_ n: Int) throws -> NewDeliveryRecord {
                try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
            }
            var ghost = try record(0).delivery
            let missing = Fixture.change(&ghost, key: DeliveryKey(9_999), .expired, at: Fixture.t0)

            // All four in one transaction (the writer is held until they are queued).
            let blocker = await holdWriter(store, untilQueued: 4)
            let chain = CommitChain()
            let first = deliveries.queueCommit(requests: [], inserts: [try record(1)], changes: [], chain: chain)
            let failing = deliveries.queueCommit(requests: [], inserts: [try record(2)], changes: [missing], chain: chain)
            let later = deliveries.queueCommit(requests: [], inserts: [try record(3)], changes: [], chain: chain)
            let elsewhere = deliveries.queueCommit(requests: [], inserts: [try record(4)], changes: [], chain: CommitChain())
            try await blocker.value
            #expect(try await first.keys().count == 1)
            let error = await #expect(throws: StoreError.self) { try await failing.keys() }
            #expect(error?.isForeignKeyViolation == true)
            await #expect(throws: StoreError.self) { try await later.keys() }
            #expect(try await elsewhere.keys().count == 1)
            #expect(chain.isBroken)
            #expect(try deliveryTableCounts(store)["deliveries"] == 2)

            // A batch that aborts (a job ends the transaction) fails the chain's commit in it; the chain's next
            // commit, in the writer's next transaction, is not applied.
            let second = await holdWriter(store, untilQueued: 3)
            let other = CommitChain()
            let aborted = deliveries.queueCommit(requests: [], inserts: [try record(5)], changes: [], chain: other)
            let rogue = PendingCommit()
            store.queueWrite({ db throws(StoreError) -> [DeliveryKey] in
                try db.run("ROLLBACK")
                return []
            }, completion: { rogue.complete($0.mapError { $0 }) })
            let next = deliveries.queueCommit(requests: [], inserts: [try record(6)], changes: [], chain: other)
            await #expect(throws: StoreError.self) { try await second.value }
            await #expect(throws: StoreError.self) { try await aborted.keys() }
            await #expect(throws: StoreError.self) { try await rogue.keys() }
            await #expect(throws: StoreError.self) { try await next.keys() }
            #expect(other.isBroken)
            #expect(store.writerStatistics.failedBatches == 1)
            #expect(try deliveryTableCounts(store)["deliveries"] == 2)
            #expect(try await deliveries.commit(inserts: [try record(7)], changes: []).count == 1)
            await store.close()
        }
    }

    @Test("64 concurrent commits all succeed and every row is there")
    func concurrentCommits() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let writers = 64
            let keys = try await withThrowingTaskGroup(of: [DeliveryKey].self) { group in
                for n in 0..<writers {
                    let content = try Fixture.content(n)
                    let acknowledging = try Fixture.device(2 * n)
                    let records = try [2 * n, 2 * n + 1].map { recipient in
                        try Fixture.pushed(to: [Fixture.device(recipient)], msisdn: Fixture.msisdn(recipient), content: content)
                    }
                    group.addTask {
                        let keys = try await deliveries.commit(inserts: records, changes: [])
                        var delivery = records[0].delivery
                        let ack = Fixture.change(&delivery, key: keys[0], .deliveryAcknowledged(acknowledging),
                                                 at: Fixture.t0 + .seconds(1))
                        _ = try await deliveries.commit(inserts: [], changes: [ack])
                        return keys
                    }
                }
                var all: [DeliveryKey] = []
                for try await keys in group { all += keys }
                return all
            }
            #expect(Set(keys).count == 2 * writers)
            #expect(try deliveryTableCounts(deliveries.store) == ["messages": writers, "deliveries": 2 * writers,
                                                                   "delivery_events": 3 * writers, "outbox": 0])
            let loaded = try await deliveries.loadInFlight()
            #expect(loaded.map(\.key) == keys.sorted())
            #expect(loaded.filter { $0.delivery.status == .delivered }.count == writers)
            await deliveries.store.close()
        }
    }

    @Test("a reopened store sees every delivery, event and report")
    func reopen() async throws {
        try await withTemporaryDirectory { dir in
            let first = try await openDeliveryStore(dir)
            let device = try Fixture.device(1)
            let done = try Fixture.pushed(to: [device], msisdn: Fixture.msisdn(1), content: Fixture.content(1, reference: "r"))
            let open = try Fixture.pushed(to: [Fixture.device(2)], policy: Fixture.otp, msisdn: Fixture.msisdn(2), content: Fixture.content(1))
            let keys = try await first.commit(inserts: [done, open], changes: [])
            var delivery = done.delivery
            _ = try await first.commit(inserts: [], changes: [Fixture.change(&delivery, key: keys[0], .readReported(device), at: Fixture.t0)])
            let before = try await first.loadInFlight()
            let counts = try deliveryTableCounts(first.store)
            await first.store.close()

            let second = try await openDeliveryStore(dir)
            let after = try await second.loadInFlight()
            #expect(after.map(\.key) == before.map(\.key) && after.map(\.key) == [keys[1]])
            #expect(after.map(\.recipient) == before.map(\.recipient))
            #expect(after.map(\.content) == before.map(\.content))
            #expect(after.map(\.delivery) == [open.delivery])
            #expect(try deliveryTableCounts(second.store) == counts)
            #expect(counts == ["messages": 1, "deliveries": 2, "delivery_events": 3, "outbox": 1])
            await second.store.close()
        }
    }
}
