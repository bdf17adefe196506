import Synchronization
import TandemCore
@testable import TandemEngine
@_exported import TandemTestSupport

/// Keeps everything in memory, like the SQLite store would keep it on disk; can be told to fail.
final class InMemoryDeliveryStore: DeliveryStore {
    struct Row: Sendable {
        var recipient: DeliveryRecipient
        var content: MessageContent
        var delivery: Delivery
    }

    struct State {
        var rows: [DeliveryKey: Row] = [:]
        var events: [(DeliveryKey, String, String)] = []
        var reports: [(DeliveryKey, DeliveryStatus)] = []
        var invalidations: [DeviceID] = []
        var nextKey: Int64 = 1
        var failNextCommit = false
        var log: [String] = []
        var requests: [AcceptedRequest] = []
        /// BWMI acknowledgements committed, each with its commit (``queueCommit``).
        var acknowledged: [(DeliveryKey, DeviceID)] = []
        /// While set, commits wait in `held`, in order, until ``releaseHeld()``: a slow disk.
        var holding = false
        var held: [@Sendable () -> Void] = []
        /// The fences commits came with, in order (nil: a commit without one).
        var fences: [CommitFence?] = []
        /// Partitions whose fence fails: a cluster node that lost them (``PartitionLeaseLost``).
        var lostPartitions: Set<Int> = []
        /// While set, partition loads wait until ``releaseLoads()``.
        var holdLoads = false
        var loadWaiters: [CheckedContinuation<Void, Never>] = []
        var loadsWaiting: Int { loadWaiters.count }
    }

    let state = Mutex(State())
    let sharedLog: OrderLog?

    /// Pages ``loadInFlight(in:)`` may serve; a test can hold recovery between pages.
    let pages = PageTurnstile()

    init(sharedLog: OrderLog? = nil) { self.sharedLog = sharedLog }

    struct InjectedFailure: Error {}

    /// Commits at once (or, while holding, once released), in order; a broken chain's commit fails unapplied.
    /// A BWMI acknowledgement is kept (in `acknowledged`, with the commit's other rows) and answered `acknowledged`.
    /// A fence naming a partition in `lostPartitions` fails the commit; a new delivery with a partition gets the key
    /// `n × 256 + partition`, as on PostgreSQL.
    func queueCommit(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange],
                     acknowledgements: [BWMIAcknowledgementWrite], fence: CommitFence?, chain: CommitChain) -> PendingCommit {
        let pending = PendingCommit()
        let run: @Sendable () -> Void = { [self] in
            pending.complete(Result {
                guard !chain.isBroken else { throw ChainBroken() }
                do {
                    try state.withLock { state in
                        state.fences.append(fence)
                        if let fence, let lost = fence.leases.first(where: { state.lostPartitions.contains($0.partition) }) {
                            throw PartitionLeaseLost("partition \(lost.partition)")
                        }
                    }
                    let keys = try apply(requests: requests, inserts: inserts, changes: changes)
                    for acknowledgement in acknowledgements { acknowledgement.outcome = .acknowledged }
                    state.withLock { $0.acknowledged += acknowledgements.map { ($0.delivery, $0.device) } }
                    return keys
                } catch {
                    chain.markBroken()
                    throw error
                }
            })
        }
        let runNow = state.withLock { state in
            if state.holding { state.held.append(run) }
            return !state.holding
        }
        if runNow { run() }
        return pending
    }

    var heldCount: Int { state.withLock { $0.held.count } }

    /// Stops holding and runs the held commits, oldest first.
    func releaseHeld() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for run in held { run() }
    }

    struct ChainBroken: Error {}

    func apply(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange]) throws -> [DeliveryKey] {
        try state.withLock { state in
            if state.failNextCommit {
                state.failNextCommit = false
                throw InjectedFailure()
            }
            state.requests += requests
            var keys: [DeliveryKey] = []
            for record in inserts {
                let key = DeliveryKey(record.partition.map { state.nextKey * 256 + Int64($0) } ?? state.nextKey)
                state.nextKey += 1
                state.rows[key] = Row(recipient: record.recipient, content: record.content, delivery: record.delivery)
                state.events.append((key, record.event.logKind, record.event.logDetail))
                state.reports += (record.effects.report.map { [(key, $0)] } ?? [])
                state.invalidations += record.effects.invalidations
                keys.append(key)
            }
            for change in changes {
                state.rows[change.key]?.delivery = change.delivery
                state.events.append((change.key, change.event.logKind, change.event.logDetail))
                state.reports += (change.effects.report.map { [(change.key, $0)] } ?? [])
                state.invalidations += change.effects.invalidations
            }
            return keys
        }
        .also { _ in sharedLog?.append("commit") }
    }

    func deliveryKey(smsProvider provider: String, reference: String) async throws -> DeliveryKey? {
        state.withLock { state in
            state.rows.first { $0.value.delivery.sms.map { $0.provider == provider && $0.references.contains(reference) } ?? false }?.key
        }
    }

    func appendLateEvents(_ events: [(DeliveryKey, DeliveryEvent)], at: Timestamp) async throws {
        state.withLock { state in
            for (key, event) in events { state.events.append((key, event.logKind, event.logDetail)) }
        }
    }

    func inFlightKeys() async throws -> ClosedRange<DeliveryKey>? {
        state.withLock { state in
            let keys = state.rows.filter { !$0.value.delivery.isFinal }.keys
            guard let low = keys.min(), let high = keys.max() else { return nil }
            return low...high
        }
    }

    func loadInFlight(in keys: ClosedRange<DeliveryKey>) async throws -> [StoredDelivery] {
        await pages.pass(keys)
        return state.withLock { state in
            state.rows.filter { !$0.value.delivery.isFinal && keys.contains($0.key) }.sorted { $0.key < $1.key }.map {
                StoredDelivery(key: $0.key, recipient: $0.value.recipient, content: $0.value.content, delivery: $0.value.delivery)
            }
        }
    }

    func loadInFlight(partition: Int, of map: PartitionMap) async throws -> [StoredDelivery] {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state in
                if state.holdLoads { state.loadWaiters.append(continuation) }
                return state.holdLoads
            }
            if !waits { continuation.resume() }
        }
        return state.withLock { state in
            state.rows.filter { !$0.value.delivery.isFinal && map.partition(of: $0.key) == partition }.sorted { $0.key < $1.key }.map {
                StoredDelivery(key: $0.key, recipient: $0.value.recipient, content: $0.value.content, delivery: $0.value.delivery)
            }
        }
    }

    /// Stops holding partition loads and lets the waiting ones read.
    func releaseLoads() {
        let waiting = state.withLock { state in
            state.holdLoads = false
            defer { state.loadWaiters = [] }
            return state.loadWaiters
        }
        for waiter in waiting { waiter.resume() }
    }

    func reports(for key: DeliveryKey) -> [DeliveryStatus] { state.withLock { $0.reports.filter { $0.0 == key }.map(\.1) } }
    func events(for key: DeliveryKey) -> [String] { state.withLock { $0.events.filter { $0.0 == key }.map(\.1) } }
    func stored(_ key: DeliveryKey) -> Delivery? { state.withLock { $0.rows[key]?.delivery } }
}

extension Array {
    func also(_ body: (Self) -> Void) -> Self {
        body(self)
        return self
    }
}


/// Holds page reads back by key, so that a test decides which pages load — whatever order the reads' tasks run in
/// (a count of callers let through depended on that order, which the cooperative pool does not fix under load).
actor PageTurnstile {
    /// nil: every page passes (the default). Else pages whose first key is at or below `.some(key)` pass, and
    /// `.some(nil)`: none does.
    private var passing: DeliveryKey?? = nil
    private var waiting: [(first: DeliveryKey, continuation: CheckedContinuation<Void, Never>)] = []

    /// From now on only pages starting at or below `key` pass (nil: none); the rest wait for ``release()``.
    func hold(after key: DeliveryKey?) { passing = .some(key) }

    /// Every page passes from now on; the waiting ones go first.
    func release() {
        passing = nil
        for waiter in waiting { waiter.continuation.resume() }
        waiting.removeAll()
    }

    /// Page reads currently waiting.
    var waitingCount: Int { waiting.count }

    func pass(_ keys: ClosedRange<DeliveryKey>) async {
        guard case .some(let limit) = passing else { return }
        if let limit, keys.lowerBound <= limit { return }
        await withCheckedContinuation { waiting.append((keys.lowerBound, $0)) }
    }
}
