import Synchronization
import Testing
import TandemCore
@testable import TandemEngine

/// A cluster node's scheduler (docs/cluster.md): it starts, changes, times and sends only for the partitions it holds
/// and has loaded, fences every commit with their epochs, takes a partition over by loading it, and gives one up.
@Suite("Scheduler: partitions on a cluster node")
struct SchedulerPartitionTests {
    typealias H = SchedulerTests.Harness

    /// The leases a node holds, set by the test (the lease keeper's view in `tandem serve`).
    final class Leases: PartitionOwnership {
        let node: NodeID
        let map: PartitionMap
        private let held = Mutex<[Int: Int64]>([:])

        init(_ node: String, _ leases: [Int: Int64] = [:]) throws {
            self.node = try NodeID(node)
            self.map = try PartitionMap()
            held.withLock { $0 = leases }
        }

        func epoch(of partition: Int) -> Int64? { held.withLock { $0[partition] } }
        func set(_ partition: Int, _ epoch: Int64?) { held.withLock { $0[partition] = epoch } }
        var refs: [LeaseRef] { held.withLock { $0.map { LeaseRef(partition: $0.key, epoch: $0.value) }.sorted { $0.partition < $1.partition } } }
    }

    static func node(_ name: String, _ leases: [Int: Int64], store: InMemoryDeliveryStore) async throws -> (H, Leases) {
        let ownership = try Leases(name, leases)
        let h = H(store: store, ownership: ownership)
        await h.scheduler.reconcile(with: ownership.refs)
        return (h, ownership)
    }

    @Test("new deliveries go to the partitions loaded here, in turn, each commit fenced at their epochs; with none held, NoPartitionHeld")
    func startsInHeldPartitions() async throws {
        let store = InMemoryDeliveryStore()
        let (a, leases) = try await Self.node("a", [3: 7, 9: 2], store: store)
        let first = try await a.start(.critical)
        let second = try await a.start(.critical)
        let third = try await a.start(.critical)
        #expect([first, second, third].map { leases.map.partition(of: $0) } == [3, 9, 3])
        let fences = store.state.withLock { $0.fences }
        #expect(fences.first == CommitFence(node: leases.node, leases: [LeaseRef(partition: 3, epoch: 7)]))
        #expect(fences.allSatisfy { $0 != nil })

        let (empty, _) = try await Self.node("b", [:], store: store)
        await #expect(throws: NoPartitionHeld.self) { _ = try await empty.start(.critical) }
    }

    @Test("a receipt for a delivery in a partition not held here fails NotPartitionOwner and changes nothing; the owner applies it")
    func receiptForAnotherNode() async throws {
        let store = InMemoryDeliveryStore()
        let (a, _) = try await Self.node("a", [5: 1], store: store)
        let (b, _) = try await Self.node("b", [6: 1], store: store)
        let key = try await a.start(.critical)
        await #expect(throws: NotPartitionOwner(partition: 5)) {
            try await b.scheduler.record(.readReported(SchedulerTests.d1), for: key)
        }
        await #expect(throws: NotPartitionOwner(partition: 5)) {
            try await b.scheduler.recordReceipt([.readReported(SchedulerTests.d1)], for: key,
                                                from: .init(app: SchedulerTests.appA, msisdn: SchedulerTests.msisdn))
        }
        #expect(store.events(for: key) == ["routed", "pushAccepted"])
        #expect(try await a.scheduler.record(.readReported(SchedulerTests.d1), for: key) == .applied)
        try await a.advance(to: 60)
        #expect(a.sms.sent.isEmpty)
        #expect(b.sms.sent.isEmpty)
    }

    @Test("takeover: a dead node's partition is loaded by another with its timers — an overdue fallback fires at once, a pending one at its deadline, never early")
    func takeover() async throws {
        let store = InMemoryDeliveryStore()
        let (a, _) = try await Self.node("a", [4: 1], store: store)
        let early = try await a.start(.critical)  // falls back at 30 s
        a.clock.advance(to: SchedulerTests.at(20))
        let late = try await a.start(.critical)  // at 50 s
        // Node a dies; node b claims partition 4 at epoch 2 at 35 s.
        let leases = try Leases("b", [:])
        let b = H(store: store, ownership: leases)
        b.clock.advance(to: SchedulerTests.at(35))
        leases.set(4, 2)
        let changes = await b.scheduler.reconcile(with: leases.refs)
        #expect(changes.loaded == [4])
        #expect(changes.recovery.deliveries == 2)
        #expect(changes.recovery.timersOverdue >= 1)
        await b.dispatcher.waitUntilIdle()
        try await b.advance(to: 35)
        #expect(await eventually { b.sms.sent.map(\.key) == [early] })
        try await b.advance(to: 49.99)
        #expect(b.sms.sent.map(\.key) == [early])
        try await b.advance(to: 50)
        #expect(b.sms.sent.map(\.key) == [early, late])
        #expect(store.state.withLock { $0.fences.last??.leases } == [LeaseRef(partition: 4, epoch: 2)])
    }

    @Test("a partition given up leaves memory: its timers no longer fire here, and commands for it fail NotPartitionOwner")
    func dropped() async throws {
        let store = InMemoryDeliveryStore()
        let (a, leases) = try await Self.node("a", [4: 1, 8: 1], store: store)
        let lost = try await a.start(.critical)
        let kept = try await a.start(.critical)
        #expect(leases.map.partition(of: lost) == 4)
        leases.set(4, nil)
        let changes = await a.scheduler.reconcile(with: leases.refs)
        #expect(changes.dropped == [4])
        #expect(await a.scheduler.delivery(for: lost) == nil)
        #expect(await a.scheduler.delivery(for: kept) != nil)
        #expect(await a.scheduler.loadedPartitions == [LeaseRef(partition: 8, epoch: 1)])
        try await a.advance(to: 31)
        #expect(a.sms.sent.map(\.key) == [kept])
        await #expect(throws: NotPartitionOwner(partition: 4)) {
            try await a.scheduler.record(.readReported(SchedulerTests.d1), for: lost)
        }
    }

    @Test("a commit whose fence fails (the lease was lost in the database) is neither stored nor acted on: no SMS, the caller gets the error")
    func fenceFails() async throws {
        let store = InMemoryDeliveryStore()
        let (a, _) = try await Self.node("a", [4: 1], store: store)
        let key = try await a.start(.critical)
        store.state.withLock { $0.lostPartitions = [4] }
        await #expect(throws: PartitionLeaseLost.self) {
            try await a.scheduler.record(.manualFallbackRequested, for: key)
        }
        try await a.advance(to: 31)  // the timer's commit fails too: tried again, never acted on
        #expect(a.sms.sent.isEmpty)
        #expect(store.events(for: key) == ["routed", "pushAccepted"])
    }

    @Test("a lease that lapses locally stops the node acting on its partition (timers wait, receipts fail NotPartitionOwner); renewed at the same epoch, the waiting fallback fires")
    func lapseAndReload() async throws {
        let store = InMemoryDeliveryStore()
        let (a, leases) = try await Self.node("a", [4: 1], store: store)
        let key = try await a.start(.critical)
        leases.set(4, nil)  // the renewal is late: not valid here, still held in the database
        try await a.advance(to: 31)  // the fallback timer cannot be fenced: tried again later, nothing sent
        #expect(a.sms.sent.isEmpty)
        await #expect(throws: NotPartitionOwner(partition: 4)) {
            try await a.scheduler.record(.readReported(SchedulerTests.d1), for: key)
        }
        leases.set(4, 1)  // renewed at the same epoch
        try await a.advance(to: 33)
        #expect(a.sms.sent.map(\.key) == [key])
        #expect(store.events(for: key) == ["routed", "pushAccepted", "timerFired", "smsSubmitted"])
    }

    @Test("a lease that lapses between a commit and acting on it: the commit is kept, not acted on; the partition is dropped, reloaded when valid again, and what was committed resumes once")
    func lapseAfterCommit() async throws {
        let store = InMemoryDeliveryStore()
        let (a, leases) = try await Self.node("a", [4: 1], store: store)
        let key = try await a.start(.critical)
        store.state.withLock { $0.holding = true }
        a.clock.advance(to: SchedulerTests.at(31))
        let firing = Task { try await a.scheduler.fireDueTimers() }
        #expect(await eventually { store.heldCount == 1 })
        leases.set(4, nil)
        store.releaseHeld()
        _ = try await firing.value
        await a.dispatcher.waitUntilIdle()
        #expect(a.sms.sent.isEmpty)  // committed "send the SMS", not sent: the lease lapsed
        #expect(await a.scheduler.loadedPartitions.isEmpty)
        #expect(store.stored(key)?.state == .awaitingSMSSubmit)

        leases.set(4, 1)
        let changes = await a.scheduler.reconcile(with: leases.refs)
        #expect(changes.loaded == [4])
        #expect(changes.recovery.smsResent == 1)
        await a.dispatcher.waitUntilIdle()
        #expect(a.sms.sent.map(\.key) == [key])
        try await a.advance(to: 120)
        #expect(a.sms.sent.map(\.key) == [key])
    }

    @Test("commands for a partition still loading wait for it and then apply, in order")
    func heldWhileLoading() async throws {
        let store = InMemoryDeliveryStore()
        let (a, _) = try await Self.node("a", [4: 1], store: store)
        let key = try await a.start(.critical)
        let leases = try Leases("b", [4: 2])
        let b = H(store: store, ownership: leases)
        store.state.withLock { $0.holdLoads = true }
        let loading = Task { await b.scheduler.reconcile(with: leases.refs) }
        #expect(await eventually { store.state.withLock { $0.loadsWaiting } == 1 })
        let read = Task { try await b.scheduler.record(.readReported(SchedulerTests.d1), for: key) }
        #expect(await eventually { await b.scheduler.heldForPartition[4]?.count == 1 })
        store.releaseLoads()
        let changes = await loading.value
        #expect(changes.recovery.commandsHeld == 1)
        #expect(try await read.value == .applied)
        try await b.advance(to: 31)
        #expect(b.sms.sent.isEmpty)
        #expect(store.reports(for: key) == [.read])
    }
}

/// Forwarding between two nodes in one process: node b's forwarder hands calls to node a's scheduler, as the
/// internal HTTP call does between processes.
@Suite("Scheduler: calls forwarded to a partition's owner")
struct SchedulerForwardingTests {
    typealias H = SchedulerTests.Harness
    typealias Leases = SchedulerPartitionTests.Leases

    /// Sends every call to `owner`'s scheduler, recording the partitions it was asked for.
    final class DirectForwarder: DeliveryForwarder {
        let owner: Scheduler
        let asked = Mutex<[Int]>([])
        init(owner: Scheduler) { self.owner = owner }
        func forward(_ call: ForwardedCall, partition: Int) async throws -> ForwardedAnswer {
            asked.withLock { $0.append(partition) }
            return try await owner.applyForwarded(call)
        }
    }

    static func pair() async throws -> (a: H, b: H, forwarder: DirectForwarder, store: InMemoryDeliveryStore) {
        let store = InMemoryDeliveryStore()
        let (a, _) = try await SchedulerPartitionTests.node("a", [5: 1], store: store)
        let (b, _) = try await SchedulerPartitionTests.node("b", [6: 1], store: store)
        let forwarder = DirectForwarder(owner: a.scheduler)
        await b.scheduler.setForwarder(forwarder)
        return (a, b, forwarder, store)
    }

    @Test("a read reported on node b for node a's delivery is applied by a before its deadline: no SMS, one Read report")
    func receipt() async throws {
        let (a, b, forwarder, store) = try await Self.pair()
        let key = try await a.start(.critical)
        let sender = Scheduler.ReceiptSender(app: SchedulerTests.appA, msisdn: SchedulerTests.msisdn)
        let content = SchedulerTests.appContent
        let appKey = try await a.start(.critical, content: content)
        #expect(try await b.scheduler.recordReceipt([.readReported(SchedulerTests.d1)], for: appKey, from: sender) == .recorded)
        #expect(forwarder.asked.withLock { $0 } == [5])
        #expect(store.reports(for: appKey) == [.read])
        // A receipt naming another app is answered by the owner as it would be locally.
        #expect(try await b.scheduler.recordReceipt([.readReported(SchedulerTests.d1)], for: key, from: sender) == .notTheRecipient)
        try await a.advance(to: 31)
        try await b.advance(to: 31)
        #expect(a.sms.sent.map(\.key) == [key])
        #expect(b.sms.sent.isEmpty)
    }

    @Test("events are split by partition: this node's applied here, the others forwarded, outcomes in order; a fallback request is forwarded")
    func eventsAndFallback() async throws {
        let (a, b, forwarder, store) = try await Self.pair()
        let remote = try await a.start(.otp)
        let local = try await b.start(.otp)
        let outcomes = try await b.scheduler.record([(local, .deliveryAcknowledged(SchedulerTests.d1)),
                                                     (remote, .deliveryAcknowledged(SchedulerTests.d1))])
        #expect(outcomes == [.applied, .applied])
        #expect(store.events(for: remote).last == "deliveryAcknowledged")
        #expect(store.events(for: local).last == "deliveryAcknowledged")
        let waiting = try await a.start(.otp)
        let availability = try await b.scheduler.requestManualFallback(for: waiting)
        #expect(availability == .available)
        await a.dispatcher.waitUntilIdle()
        #expect(a.sms.sent.map(\.key) == [waiting])
        #expect(forwarder.asked.withLock { $0 } == [5, 5])
    }

    @Test("an SMS report reaching node b before node a stored the submission it belongs to waits for it in the store, then goes to a")
    func overtakingReport() async throws {
        let (a, b, forwarder, store) = try await Self.pair()
        let key = try await a.start(.otp)
        let report = SMSDeliveryReport(provider: "recording", reference: "smsc-1", outcome: .delivered)
        let arriving = Task { try await b.scheduler.recordSMSReports([report]) }
        #expect(try await a.scheduler.requestManualFallback(for: key) == .available)
        await a.dispatcher.waitUntilIdle()  // the submission (smsc-1) is stored now, by a
        var seconds = 0.0
        #expect(await eventually {
            seconds += 0.25
            b.clock.advance(to: SchedulerTests.at(seconds))
            return store.events(for: key).contains("smsPartReported")
        })
        try await arriving.value
        #expect(seconds < 10, "found within the grace")
        #expect(forwarder.asked.withLock { $0 }.contains(5))
        #expect(store.reports(for: key) == [.delivered])
    }

    @Test("a forwarded call for a partition the owner does not hold is refused (NotPartitionOwner), never forwarded again")
    func notOwnerThere() async throws {
        let (_, b, _, _) = try await Self.pair()
        let stranger = DeliveryKey(7 * 256 + 9)
        await #expect(throws: NotPartitionOwner(partition: 9)) {
            try await b.scheduler.applyForwarded(.events([(stranger, .readReported(SchedulerTests.d1))]))
        }
    }
}
