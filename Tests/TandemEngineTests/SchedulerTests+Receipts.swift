import Foundation
import Synchronization
import Testing
import TandemCore
@testable import TandemEngine

/// Receipts (`recordReceipt`, `submitReceipt`): who may send them, late ones, and the pipeline that takes
/// submitted ones in.
extension SchedulerTests {
    @Test("a receipt is applied only for its delivery's app and number; one for a delivery not in flight is left to the caller")
    func receiptChecks() async throws {
        let h = Harness()
        let key = try await h.start(.critical, content: Self.appContent)
        let before = await h.scheduler.delivery(for: key)
        let events: [DeliveryEvent] = [.deliveryAcknowledged(Self.d1), .readReported(Self.d1)]
        let otherApp = Scheduler.ReceiptSender(app: Self.appB, msisdn: Self.msisdn)
        let otherNumber = Scheduler.ReceiptSender(app: Self.appA, msisdn: MSISDN("+31612345679")!)
        #expect(try await h.scheduler.recordReceipt(events, for: key, from: otherApp) == .notTheRecipient)
        #expect(try await h.scheduler.recordReceipt(events, for: key, from: otherNumber) == .notTheRecipient)
        #expect(try await h.scheduler.recordReceipt(events, for: DeliveryKey(key.rawValue + 1_000),
                                                    from: Scheduler.ReceiptSender(app: Self.appA, msisdn: Self.msisdn)) == .notInFlight)
        #expect(await h.scheduler.delivery(for: key) == before)
        #expect(h.store.events(for: key) == ["routed", "pushAccepted"])

        let sender = Scheduler.ReceiptSender(app: Self.appA, msisdn: Self.msisdn)
        #expect(try await h.scheduler.recordReceipt(events, for: key, from: sender) == .recorded)
        #expect(h.store.events(for: key).suffix(2) == ["deliveryAcknowledged", "readReported"])
        #expect(h.store.reports(for: key) == [.read])
        // Final now: out of the table, so the caller checks the store and records through `record`.
        #expect(try await h.scheduler.recordReceipt(events, for: key, from: sender) == .notInFlight)
        #expect(h.store.events(for: key).count == 4)
        // A delivery sent without an app takes no receipt through this path.
        let plain = try await h.start(.critical)
        #expect(try await h.scheduler.recordReceipt(events, for: plain, from: sender) == .notTheRecipient)
    }

    @Test("a BWMI acknowledgement rides in its receipt's commit only when the receipt applies")
    func receiptAcknowledgement() async throws {
        let h = Harness()
        let key = try await h.start(.critical, content: Self.appContent)
        let sender = Scheduler.ReceiptSender(app: Self.appA, msisdn: Self.msisdn)
        let otherApp = Scheduler.ReceiptSender(app: Self.appB, msisdn: Self.msisdn)
        let refused = BWMIAcknowledgementWrite(delivery: key, device: Self.d1, at: h.clock.now())
        #expect(try await h.scheduler.recordReceipt([.readReported(Self.d1)], for: key, from: otherApp,
                                                    acknowledgement: refused) == .notTheRecipient)
        let unknown = BWMIAcknowledgementWrite(delivery: DeliveryKey(key.rawValue + 1_000), device: Self.d1, at: h.clock.now())
        #expect(try await h.scheduler.recordReceipt([.readReported(Self.d1)], for: unknown.delivery, from: sender,
                                                    acknowledgement: unknown) == .notInFlight)
        #expect(h.store.state.withLock { $0.acknowledged.isEmpty })
        #expect(refused.outcome == .unknown && unknown.outcome == .unknown)

        let applied = BWMIAcknowledgementWrite(delivery: key, device: Self.d1, at: h.clock.now())
        #expect(try await h.scheduler.recordReceipt([.readReported(Self.d1)], for: key, from: sender,
                                                    acknowledgement: applied) == .recorded)
        #expect(applied.outcome == .acknowledged)
        #expect(h.store.state.withLock { $0.acknowledged.map(\.0) } == [key])
        #expect(h.store.events(for: key).last == "readReported")
    }

    @Test("a receipt whose read comes after its ack made the delivery final: the read is logged late, the receipt recorded; a failed commit answers the error")
    func receiptLateAndFailure() async throws {
        let h = Harness()
        let sender = Scheduler.ReceiptSender(app: Self.appA, msisdn: Self.msisdn)
        let key = try await h.start(.default, content: Self.appContent)
        #expect(try await h.scheduler.recordReceipt([.deliveryAcknowledged(Self.d1), .readReported(Self.d1)], for: key,
                                                    from: sender) == .recorded)
        #expect(h.store.reports(for: key) == [.delivered])
        #expect(h.store.events(for: key).suffix(2) == ["deliveryAcknowledged", "readReported"])

        let other = try await h.start(.critical, content: Self.appContent)
        let before = await h.scheduler.delivery(for: other)
        h.store.state.withLock { $0.failNextCommit = true }
        await #expect(throws: InMemoryDeliveryStore.InjectedFailure.self) {
            try await h.scheduler.recordReceipt([.readReported(Self.d1)], for: other, from: sender)
        }
        #expect(await h.scheduler.delivery(for: other) == before)
        #expect(try await h.scheduler.recordReceipt([.readReported(Self.d1)], for: other, from: sender) == .recorded)
    }

    @Test("receipts submitted from outside a task are taken in together and answered through their completions")
    func submittedReceipts() async throws {
        let h = Harness()
        let sender = Scheduler.ReceiptSender(app: Self.appA, msisdn: Self.msisdn)
        var keys: [DeliveryKey] = []
        for _ in 0..<5 { keys.append(try await h.start(.critical, content: Self.appContent)) }
        let outcomes = Mutex<[DeliveryKey: Result<Scheduler.ReceiptOutcome, any Error>]>([:])
        let unknown = DeliveryKey(keys.last!.rawValue + 1_000)
        for key in keys + [unknown] {
            h.scheduler.submitReceipt([.readReported(Self.d1)], for: key, from: sender) { outcome in
                outcomes.withLock { $0[key] = outcome }
            }
        }
        #expect(await eventually { outcomes.withLock { $0.count } == keys.count + 1 })
        let answered = outcomes.withLock { $0.mapValues { try? $0.get() } }
        #expect(keys.allSatisfy { answered[$0] == .recorded })
        #expect(answered[unknown] == .notInFlight)
        #expect(keys.allSatisfy { h.store.reports(for: $0) == [.read] })

        let failing = try await h.start(.critical, content: Self.appContent)
        h.store.state.withLock { $0.failNextCommit = true }
        let failure = Mutex<(any Error)?>(nil)
        h.scheduler.submitReceipt([.readReported(Self.d1)], for: failing, from: sender) { outcome in
            if case .failure(let error) = outcome { failure.withLock { $0 = error } }
        }
        #expect(await eventually { failure.withLock { $0 } is InMemoryDeliveryStore.InjectedFailure })
        #expect(await h.scheduler.delivery(for: failing)?.isFinal == false)
    }

    @Test("the pipeline parks when idle and a submitted receipt wakes it; it ends once its scheduler is gone")
    func pipelineParksAndEnds() async throws {
        var h: Harness? = Harness()
        let sender = Scheduler.ReceiptSender(app: Self.appA, msisdn: Self.msisdn)
        var keys: [DeliveryKey] = []
        for _ in 0..<3 { keys.append(try await h!.start(.critical, content: Self.appContent)) }
        let inbox = h!.scheduler.inbox
        let answered = Mutex<[DeliveryKey]>([])
        for key in keys {
            h!.scheduler.submitReceipt([.readReported(Self.d1)], for: key, from: sender) { outcome in
                if case .success(.recorded) = outcome { answered.withLock { $0.append(key) } }
            }
            // Each receipt finds the pipeline parked (after the first burst) and wakes it: no task is started for it.
            #expect(await eventually { answered.withLock { $0.last } == key && inbox.isParked })
        }
        #expect(inbox.unwatchedSubmissions == 0)
        #expect(keys.allSatisfy { h!.store.reports(for: $0) == [.read] })

        weak let gone = h?.scheduler
        #expect(gone != nil && !inbox.isStopped)
        h = nil
        #expect(gone == nil)  // the parked pipeline does not hold it
        #expect(inbox.isStopped && !inbox.isParked)  // its deinit resumed the pipeline, which will not park again
    }

    @Test("receipts submitted from several threads while the pipeline starts and stops are all answered once",
          arguments: [false, true])
    func submittedConcurrently(holdingCommits: Bool) async throws {
        let h = Harness()
        let sender = Scheduler.ReceiptSender(app: Self.appA, msisdn: Self.msisdn)
        var keys: [DeliveryKey] = []
        for _ in 0..<200 { keys.append(try await h.start(.critical, content: Self.appContent)) }
        // Held commits: the finish loop is running while receipts arrive, and takes them in itself.
        if holdingCommits { h.store.state.withLock { $0.holding = true } }
        let answers = Mutex<[DeliveryKey: Int]>([:])
        let scheduler = h.scheduler
        for part in 0..<4 {
            let mine = keys.enumerated().filter { $0.offset % 4 == part }.map(\.element)
            Thread.detachNewThread {
                for key in mine {
                    scheduler.submitReceipt([.readReported(Self.d1)], for: key, from: sender) { outcome in
                        if case .success(.recorded) = outcome { answers.withLock { $0[key, default: 0] += 1 } }
                    }
                }
            }
        }
        if holdingCommits {
            #expect(await eventually { h.store.heldCount >= 1 })
            h.store.releaseHeld()
        }
        #expect(await eventually { answers.withLock { $0.count } == keys.count })
        #expect(answers.withLock { $0.values.allSatisfy { $0 == 1 } })
        #expect(keys.allSatisfy { h.store.reports(for: $0) == [.read] })
    }
}
