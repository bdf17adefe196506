import Synchronization
import Testing
import TandemCore
@testable import TandemEngine

/// SMS delivery reports reach their delivery by provider and part id — in flight, after a restart, after
/// the delivery is final, and when the report overtakes the submit it belongs to.
@Suite("Scheduler: SMS reports by part id")
struct SchedulerSMSReportTests {
    typealias H = SchedulerTests.Harness

    /// A Default message to a number without the app: SMS at once.
    func startSMS(_ h: H) async throws -> DeliveryKey {
        let route = SMSRoute(reason: .noPushableDevice, policy: PolicySet.specDefaults.defaultPolicy)
        let key = try await h.scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(SchedulerTests.msisdn), content: SchedulerTests.content,
                                                                      decision: .sms(route), smsValidity: .seconds(3_600))])[0]
        await h.dispatcher.waitUntilIdle()
        return key
    }

    func report(_ reference: String, _ outcome: SMSOutcome, provider: String = "recording") -> SMSDeliveryReport {
        SMSDeliveryReport(provider: provider, reference: reference, outcome: outcome)
    }

    @Test("a three-part SMS is Delivered when the last part's report arrives, reported once")
    func multipart() async throws {
        let h = H(sms: RecordingSMSSender(parts: 3))
        let key = try await startSMS(h)
        #expect(await h.scheduler.delivery(for: key)?.sms?.references == ["smsc-1.1", "smsc-1.2", "smsc-1.3"])
        try await h.scheduler.recordSMSReports([report("smsc-1.1", .delivered), report("smsc-1.3", .delivered)])
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
        try await h.scheduler.recordSMSReports([report("smsc-1.2", .delivered)])
        #expect(await h.scheduler.delivery(for: key) == nil)   // final, out of memory
        #expect(h.store.reports(for: key) == [.delivered])
        #expect(h.store.events(for: key).filter { $0 == "smsPartReported" }.count == 3)
    }

    @Test("a report under another provider's name does not match the same id, and with no submission outstanding it does not wait")
    func providerMatters() async throws {
        let h = H()
        let key = try await startSMS(h)
        try await h.scheduler.recordSMSReports([report("smsc-1", .delivered, provider: "kannel")])  // returns at once
        #expect(await h.scheduler.waitingSMSReports == 0)
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
    }

    @Test("after a restart, reports still find in-flight parts; a report for a final delivery goes to its log")
    func afterRestart() async throws {
        let store = InMemoryDeliveryStore()
        let first = H(store: store)
        let key = try await startSMS(first)
        let second = H(store: store)
        try await second.scheduler.recover()
        try await second.scheduler.recordSMSReports([report("smsc-1", .failed)])
        #expect(store.reports(for: key) == [.failed])
        try await second.scheduler.recordSMSReports([report("smsc-1", .delivered)])
        #expect(store.reports(for: key) == [.failed])
        #expect(store.events(for: key).suffix(2) == ["smsPartReported", "smsPartReported"])
    }

    @Test("a report that overtakes its submit waits for it and is then applied")
    func overtakingReport() async throws {
        let sms = HeldSMSSender()
        let h = H(smsSender: sms)
        let key = try await startHeldSMS(h, sms)
        // The SMSC's report arrives while the submission is still being recorded.
        let early = Task { try await h.scheduler.recordSMSReports([report("smsc-1", .delivered)]) }
        while await h.scheduler.waitingSMSReports == 0 { await Task.yield() }
        sms.releaseAll()
        try await early.value
        #expect(h.store.reports(for: key) == [.delivered])
    }

    @Test("a waiting report gives up as soon as no submission is left unrecorded, or when the grace ends")
    func waitingEnds() async throws {
        let sms = HeldSMSSender()
        let h = H(smsSender: sms, configuration: Scheduler.Configuration(smsReportGrace: .seconds(10)))
        let key = try await startHeldSMS(h, sms)
        // Not this submission's id: it waits while the submission is outstanding, and stops when it is recorded.
        let stray = Task { try await h.scheduler.recordSMSReports([report("smsc-other", .delivered)]) }
        while await h.scheduler.waitingSMSReports == 0 { await Task.yield() }
        sms.releaseAll()
        try await stray.value   // no clock movement needed
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)

        // With another submission outstanding, the grace bounds the wait.
        _ = try await startHeldSMS(h, sms)
        let late = Task { try await h.scheduler.recordSMSReports([report("smsc-other", .delivered)]) }
        while await h.scheduler.waitingSMSReports == 0 { await Task.yield() }
        h.clock.advance(to: SchedulerTests.at(10))
        try await late.value
        #expect(await h.scheduler.waitingSMSReports == 0)
        sms.releaseAll()
    }

    @Test("matched reports in a batch are committed without waiting for an unmatched one beside them")
    func matchedFirst() async throws {
        let sms = HeldSMSSender()
        let h = H(smsSender: sms)
        let first = try await startHeldSMS(h, sms)
        sms.releaseAll()
        await h.dispatcher.waitUntilIdle()
        let second = try await startHeldSMS(h, sms)
        let batch = Task { try await h.scheduler.recordSMSReports([report("smsc-1", .delivered), report("smsc-2", .failed)]) }
        #expect(await eventually { h.store.reports(for: first) == [.delivered] })
        #expect(await eventually { await h.scheduler.waitingSMSReports == 1 })
        sms.releaseAll()
        try await batch.value
        #expect(h.store.reports(for: second) == [.failed])
    }

    @Test("a submission indexed while the report's store lookup was in progress is still found")
    func lookupRace() async throws {
        let store = GatedLookupStore()
        let sms = HeldSMSSender()
        let h = H(store: store.inner, smsSender: sms)
        let scheduler = Scheduler(store: store, dispatcher: h.dispatcher, clock: h.clock)
        let route = SMSRoute(reason: .noPushableDevice, policy: PolicySet.specDefaults.defaultPolicy)
        let key = try await scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(SchedulerTests.msisdn), content: SchedulerTests.content,
                                                                    decision: .sms(route), smsValidity: .seconds(3_600))])[0]
        while sms.held == 0 { await Task.yield() }
        // The report misses the index and reads the store (which has no such id yet); while that read is
        // in progress the submission is recorded and indexed.
        let reporting = Task { try await scheduler.recordSMSReports([report("smsc-1", .delivered)]) }
        while !store.lookupStarted { await Task.yield() }
        sms.releaseAll()
        await h.dispatcher.waitUntilIdle()
        store.openLookups()
        try await reporting.value
        #expect(store.inner.reports(for: key) == [.delivered])
    }

    /// Starts an SMS whose submission the sender holds until `releaseAll()` (none may be held before).
    func startHeldSMS(_ h: H, _ sms: HeldSMSSender) async throws -> DeliveryKey {
        let route = SMSRoute(reason: .noPushableDevice, policy: PolicySet.specDefaults.defaultPolicy)
        let key = try await h.scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(SchedulerTests.msisdn), content: SchedulerTests.content,
                                                                      decision: .sms(route), smsValidity: .seconds(3_600))])[0]
        while sms.held == 0 { await Task.yield() }
        return key
    }
}

/// An SMS sender that holds every submission until released: the submission stays unrecorded meanwhile.
/// Ids are `smsc-<n>`, n counting from 1.
final class HeldSMSSender: SMSSender {
    private let state = Mutex<(submitted: Int, held: [CheckedContinuation<Void, Never>])>((0, []))
    var providerName: String { "recording" }
    var held: Int { state.withLock { $0.held.count } }

    func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        let number = state.withLock { state -> Int in
            state.submitted += 1
            return state.submitted
        }
        await withCheckedContinuation { continuation in state.withLock { $0.held.append(continuation) } }
        return .submitted(references: ["smsc-\(number)"])
    }

    func releaseAll() {
        for continuation in state.withLock({ state in defer { state.held = [] }; return state.held }) { continuation.resume() }
    }
}

/// The in-memory store, except that `deliveryKey` answers as of when it was asked but returns only once
/// `openLookups()` is called: a slow store read.
final class GatedLookupStore: DeliveryStore {
    let inner = InMemoryDeliveryStore()
    private let gate = Mutex<(started: Bool, open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, false, []))
    var lookupStarted: Bool { gate.withLock { $0.started } }

    func queueCommit(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange],
                     acknowledgements: [BWMIAcknowledgementWrite], fence: CommitFence?, chain: CommitChain) -> PendingCommit {
        inner.queueCommit(requests: requests, inserts: inserts, changes: changes, acknowledgements: acknowledgements, fence: fence,
                          chain: chain)
    }

    func appendLateEvents(_ events: [(DeliveryKey, DeliveryEvent)], at: Timestamp) async throws {
        try await inner.appendLateEvents(events, at: at)
    }

    func inFlightKeys() async throws -> ClosedRange<DeliveryKey>? { try await inner.inFlightKeys() }

    func loadInFlight(in keys: ClosedRange<DeliveryKey>) async throws -> [StoredDelivery] { try await inner.loadInFlight(in: keys) }
    func loadInFlight(partition: Int, of map: PartitionMap) async throws -> [StoredDelivery] {
        try await inner.loadInFlight(partition: partition, of: map)
    }

    func deliveryKey(smsProvider provider: String, reference: String) async throws -> DeliveryKey? {
        let answer = try await inner.deliveryKey(smsProvider: provider, reference: reference)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = gate.withLock { gate -> Bool in
                gate.started = true
                if !gate.open { gate.waiting.append(continuation) }
                return gate.open
            }
            if open { continuation.resume() }
        }
        return answer
    }

    func openLookups() {
        let waiting = gate.withLock { gate -> [CheckedContinuation<Void, Never>] in
            gate.open = true
            defer { gate.waiting = [] }
            return gate.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// A ``BatchSMSSender`` that records the batches it was given; the numbers ending in 9 are refused.
final class RecordingBatchSMSSender: BatchSMSSender {
    private let batches = Mutex<[[SMSRequest]]>([])
    var providerName: String { "batch" }

    func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        await submit(batch: [sms])[0]
    }

    func submit(batch: [SMSRequest]) async -> [SMSSubmitResult] {
        let first = batches.withLock { batches -> Int in
            batches.append(batch)
            return batches.map(\.count).reduce(0, +) - batch.count
        }
        return batch.enumerated().map { index, sms in
            sms.msisdn.e164.hasSuffix("9") ? .rejected(reason: "refused") : .submitted(references: ["b-\(first + index + 1)"])
        }
    }

    var sizes: [Int] { batches.withLock { $0.map(\.count) } }
}

@Suite("Scheduler: SMS through a batch sender")
struct SchedulerBatchSMSTests {
    @Test("the SMS of one scheduler batch go to a batch sender in one call, in order; each result reaches its own delivery")
    func oneCallPerBatch() async throws {
        let sender = RecordingBatchSMSSender()
        let h = SchedulerTests.Harness(smsSender: sender)
        let route = SMSRoute(reason: .noPushableDevice, policy: PolicySet.specDefaults.defaultPolicy)
        let numbers = (1...5).map { MSISDN("+3161000000\($0 == 5 ? 9 : $0)")! }
        let keys = try await h.scheduler.accept(numbers.map {
            Scheduler.NewDelivery(recipient: .msisdn($0), content: SchedulerTests.content, decision: .sms(route), smsValidity: .seconds(3_600))
        })
        await h.dispatcher.waitUntilIdle()
        #expect(sender.sizes == [5])
        for (index, key) in keys.prefix(4).enumerated() {
            #expect(await h.scheduler.delivery(for: key)?.sms?.references == ["b-\(index + 1)"])
            #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
        }
        // The refused one failed over SMS at once; the others are matched by their batch references.
        #expect(await h.scheduler.delivery(for: keys[4]) == nil)
        #expect(h.store.reports(for: keys[4]) == [.failed])
        try await h.scheduler.recordSMSReports([SMSDeliveryReport(provider: "batch", reference: "b-3", outcome: .delivered)])
        #expect(await h.scheduler.delivery(for: keys[2]) == nil)
        #expect(h.store.reports(for: keys[2]).last == .delivered)
    }
}
