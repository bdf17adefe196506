import Synchronization

/// Where the scheduler persists deliveries. Every commit is one durable transaction: when it succeeds, the
/// changes survive `kill -9`; when it fails, none of them happened.
public protocol DeliveryStore: Sendable {
    /// Queues the storing of `requests` (message records, idempotency keys), the insertion of `inserts` (each
    /// with its first transition already applied) and `changes`, as one transaction, and returns at once:
    /// ``PendingCommit/keys()`` waits for it and gives the new deliveries' keys, in order.
    ///
    /// Commits queued on one `chain` are applied in the order they were queued, and each only if every
    /// earlier one of the chain committed: once one fails, the chain's later commits fail without being
    /// applied (``CommitChain/isBroken``). So a caller may prepare and queue a commit that builds on one
    /// still in flight.
    ///
    /// `acknowledgements`: BWMI acknowledgements committed in the same transaction (each sets its
    /// ``BWMIAcknowledgementWrite/outcome`` there) — what the scheduler carries with the receipts they come with.
    ///
    /// `fence`: on a cluster node, the partition leases the commit is made under; the store fails the whole commit
    /// with ``PartitionLeaseLost`` unless the node still holds each at its epoch, and gives each insert whose
    /// ``NewDeliveryRecord/partition`` is set a key in that partition. A store that serves one node only (SQLite)
    /// is never given one.
    func queueCommit(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange],
                     acknowledgements: [BWMIAcknowledgementWrite], fence: CommitFence?, chain: CommitChain) -> PendingCommit

    /// Appends events to deliveries that are already final (late receipts): the event log only, all in one
    /// transaction.
    func appendLateEvents(_ events: [(DeliveryKey, DeliveryEvent)], at: Timestamp) async throws

    /// The delivery an SMS part id (``SMSSubmission/references``) was recorded for, final or not; nil if none.
    func deliveryKey(smsProvider provider: String, reference: String) async throws -> DeliveryKey?

    /// The least and greatest keys of deliveries that are not final; nil when there are none. Keys of deliveries
    /// created later are greater.
    func inFlightKeys() async throws -> ClosedRange<DeliveryKey>?

    /// The deliveries that are not final with keys in `keys`, in key order, with what the dispatcher needs to
    /// resume them. Several calls may run at once.
    func loadInFlight(in keys: ClosedRange<DeliveryKey>) async throws -> [StoredDelivery]

    /// The deliveries that are not final in `partition` of `map` (keys congruent to it), in key order: what a node
    /// loads when it takes a partition over.
    func loadInFlight(partition: Int, of map: PartitionMap) async throws -> [StoredDelivery]
}

extension DeliveryStore {
    /// ``queueCommit(requests:inserts:changes:acknowledgements:chain:)`` without acknowledgements.
    public func queueCommit(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange],
                            chain: CommitChain) -> PendingCommit {
        queueCommit(requests: requests, inserts: inserts, changes: changes, acknowledgements: [], fence: nil, chain: chain)
    }

    /// ``queueCommit(requests:inserts:changes:acknowledgements:fence:chain:)`` without a fence.
    public func queueCommit(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange],
                            acknowledgements: [BWMIAcknowledgementWrite], chain: CommitChain) -> PendingCommit {
        queueCommit(requests: requests, inserts: inserts, changes: changes, acknowledgements: acknowledgements, fence: nil,
                    chain: chain)
    }

    /// Every delivery that is not final, in key order.
    public func loadInFlight() async throws -> [StoredDelivery] {
        guard let keys = try await inFlightKeys() else { return [] }
        return try await loadInFlight(in: keys)
    }

    /// Stores `requests`, inserts and changes deliveries in one transaction, on a chain of its own, and
    /// returns the new deliveries' keys once it committed.
    public func commit(requests: [AcceptedRequest] = [], inserts: [NewDeliveryRecord],
                       changes: [DeliveryChange]) async throws -> [DeliveryKey] {
        try await queueCommit(requests: requests, inserts: inserts, changes: changes, chain: CommitChain()).keys()
    }
}

/// Commits that build on one another (see ``DeliveryStore/queueCommit(requests:inserts:changes:acknowledgements:chain:)``).
/// A store marks the chain broken when one of its commits fails, before applying any later one; a broken
/// chain stays broken — its owner starts a new one.
public final class CommitChain: Sendable {
    private let broken = Atomic(false)

    public init() {}

    public var isBroken: Bool { broken.load(ordering: .acquiring) }

    public func markBroken() { broken.store(true, ordering: .releasing) }
}

/// The outcome of a queued commit, once the store has it: completed exactly once, awaited by at most one
/// task.
public final class PendingCommit: Sendable {
    public typealias Outcome = Result<[DeliveryKey], any Error>

    private let state = Mutex<(outcome: Outcome?, waiter: CheckedContinuation<Outcome, Never>?)>((nil, nil))

    public init() {}

    /// Already decided (a store that commits synchronously, or nothing to commit).
    public convenience init(_ outcome: Outcome) {
        self.init()
        complete(outcome)
    }

    /// Records the outcome and wakes the waiter; later calls are ignored.
    public func complete(_ outcome: Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Waits for the outcome.
    public func outcome() async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let ready = state.withLock { state -> Outcome? in
                if state.outcome == nil { state.waiter = continuation }
                return state.outcome
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The new deliveries' keys once the commit succeeded; its error if it failed.
    public func keys() async throws -> [DeliveryKey] {
        try await outcome().get()
    }
}

/// A new delivery and everything its first transition (routing) produced.
public struct NewDeliveryRecord: Sendable {
    public let recipient: DeliveryRecipient
    public let content: MessageContent
    public let delivery: Delivery
    public let event: DeliveryEvent
    public let at: Timestamp
    public let effects: PersistedEffects
    /// On a cluster node, the partition its key must fall in (one the commit's fence holds); nil: any key.
    public let partition: Int?

    public init(recipient: DeliveryRecipient, content: MessageContent, delivery: Delivery, event: DeliveryEvent, at: Timestamp,
                effects: PersistedEffects, partition: Int? = nil) {
        self.recipient = recipient
        self.content = content
        self.delivery = delivery
        self.event = event
        self.at = at
        self.effects = effects
        self.partition = partition
    }
}

/// One event applied to an existing delivery: its snapshot afterwards and the effects to persist with it.
public struct DeliveryChange: Sendable {
    public let key: DeliveryKey
    public let delivery: Delivery
    public let event: DeliveryEvent
    public let at: Timestamp
    public let effects: PersistedEffects

    public init(key: DeliveryKey, delivery: Delivery, event: DeliveryEvent, at: Timestamp, effects: PersistedEffects) {
        self.key = key
        self.delivery = delivery
        self.event = event
        self.at = at
        self.effects = effects
    }
}

/// The actions that are database writes, persisted in the same transaction as the snapshot.
public struct PersistedEffects: Sendable, Hashable {
    /// The final status report for the sender's outbox, when the transition reached it (a delivery reports one
    /// final status, once: not an array, which would allocate for every final receipt).
    public var report: DeliveryStatus?
    /// Registrations whose push token the push service declared dead.
    public var invalidations: [DeviceID] = []

    public init(report: DeliveryStatus? = nil, invalidations: [DeviceID] = []) {
        self.report = report
        self.invalidations = invalidations
    }

    /// The database writes among a transition's actions: final reports and registration invalidations.
    public init(actions: some Sequence<DeliveryAction>) {
        for action in actions {
            switch action {
            case .report(let status):
                assert(report == nil, "a transition reports at most one final status")
                report = status
            case .invalidateRegistration(let device): invalidations.append(device)
            case .sendPush, .terminatePush, .sendSMS, .schedule, .cancel, .record: break
            }
        }
    }
}

/// An in-flight delivery with what acting on it needs: as loaded at start-up, as the scheduler holds it,
/// and as the dispatcher receives it.
public struct StoredDelivery: Sendable {
    public let key: DeliveryKey
    public let recipient: DeliveryRecipient
    public let content: MessageContent
    public var delivery: Delivery

    public init(key: DeliveryKey, recipient: DeliveryRecipient, content: MessageContent, delivery: Delivery) {
        self.key = key
        self.recipient = recipient
        self.content = content
        self.delivery = delivery
    }
}
