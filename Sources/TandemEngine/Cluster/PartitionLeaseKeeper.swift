import Synchronization
import TandemCore

/// One node's partition leases, round by round (docs/cluster.md): heartbeat, read every lease, plan
/// (``LeasePlanner``), renew, release, claim. It keeps which partitions this node may act on, at which epoch and
/// until when — on the node's own monotonic clock, never the database's.
///
/// **Validity.** A lease renewed or claimed in a round is valid here until `start + lifetime − margin`, where
/// `start` was read before the round's first statement was sent. The database set its expiry to its own
/// `now() + lifetime` later than that, so this node stops acting on a partition before any other node can claim it,
/// whatever the two clocks say. A round that fails (the database unreachable) changes nothing here: the leases
/// held run out at their validity, and ``epoch(of:at:)`` answers nil from then on.
///
/// **Order within a round.** Renewals first (they keep what the node acts on), then releases (the partitions are
/// dropped here before the statement is sent, so nothing new is fenced with them; a commit already past its fence
/// holds the lease row until it ends, and the release waits for it), then claims.
///
/// `@unchecked Sendable`: ``round(startedAt:)`` and ``leave()`` are called by one loop, one at a time (the
/// statements object is used by nothing else); what they change is behind `held`'s lock, which any thread reads.
public final class PartitionLeaseKeeper: @unchecked Sendable {
    /// What a round changed.
    public struct Changes: Sendable, Equatable {
        /// Partitions this node may act on from now on, at these epochs: load their deliveries first.
        public var gained: [LeaseRef] = []
        /// Partitions this node must no longer act on (expired, taken, or claimed again under a new epoch).
        public var lost: [LeaseRef] = []
        /// Partitions this node gave up for another node.
        public var released: [LeaseRef] = []

        public init(gained: [LeaseRef] = [], lost: [LeaseRef] = [], released: [LeaseRef] = []) {
            self.gained = gained
            self.lost = lost
            self.released = released
        }
    }

    /// The database's partition count is not the one the planner was made for: planning with it would claim
    /// partitions that do not exist, or never claim some that do.
    public struct PartitionCountMismatch: Error, Equatable, CustomStringConvertible {
        public let database: Int
        public let planner: Int
        public var description: String {
            "the database has \(database) partitions, this node was set up for \(planner): restart it to read the database's count"
        }
    }

    private struct Held {
        var epoch: Int64
        var validUntil: ContinuousClock.Instant
    }

    public let planner: LeasePlanner
    public let address: String
    public let lifetime: Duration
    public let margin: Duration
    private let statements: any PartitionLeaseStatements
    private let held = Mutex<[Int: Held]>([:])
    /// As of the last round: the address of each partition's owner, if it is live and not this node.
    private let owners = Mutex<[Int: String]>([:])

    /// `margin` (less than `lifetime`) absorbs the time between reading this node's clock and the database's, and
    /// what a commit under way may still take.
    public init(statements: any PartitionLeaseStatements, planner: LeasePlanner, address: String,
                lifetime: Duration, margin: Duration) {
        precondition(margin < lifetime, "the safety margin must be shorter than the lease lifetime")
        self.statements = statements
        self.planner = planner
        self.address = address
        self.lifetime = lifetime
        self.margin = margin
    }

    /// The epoch this node holds `partition` at, if its lease is valid at `now`; else nil: do not act on it.
    public func epoch(of partition: Int, at now: ContinuousClock.Instant) -> Int64? {
        held.withLock { held in
            guard let lease = held[partition], now < lease.validUntil else { return nil }
            return lease.epoch
        }
    }

    /// Where the node that held `partition` at the last round is reached, if it is another live node; nil when the
    /// partition had no live owner (free, expired, or this node's). Up to one round old: a forwarded call that
    /// finds the node no longer holding it is refused there, and the caller tries again.
    public func ownerAddress(of partition: Int) -> String? {
        owners.withLock { $0[partition] }
    }

    /// The partitions this node may act on at `now`, in order.
    public func partitions(at now: ContinuousClock.Instant) -> [LeaseRef] {
        held.withLock { held in
            held.filter { now < $0.value.validUntil }.map { LeaseRef(partition: $0.key, epoch: $0.value.epoch) }
                .sorted { $0.partition < $1.partition }
        }
    }

    /// One round, `start` read from the monotonic clock before calling. Throws the statements' error when the
    /// database cannot be reached, or ``PartitionCountMismatch``; what is held then stays as it was, and runs out.
    @discardableResult
    public func round(startedAt start: ContinuousClock.Instant) throws -> Changes {
        try statements.heartbeat(address: address)
        let view = try statements.view()
        guard view.partitions == planner.partitions.count else {
            throw PartitionCountMismatch(database: view.partitions, planner: planner.partitions.count)
        }
        let plan = planner.plan(now: view.now, leases: view.leases, liveNodes: view.liveNodes)
        var directory: [Int: String] = [:]
        for lease in view.leases where lease.expiresAt > view.now {
            if let owner = lease.owner, owner != planner.node, let address = view.addresses[owner] { directory[lease.partition] = address }
        }
        owners.withLock { $0 = directory }
        let validUntil = start + lifetime - margin
        var changes = Changes()

        let renewed = try statements.renew(plan.renew)
        let renewedEpochs = Dictionary(uniqueKeysWithValues: renewed.map { ($0.partition, $0.epoch) })
        held.withLock { held in
            // Held here but not renewed at the same epoch (the database let it expire, or another node has it): lost.
            for (partition, lease) in held where renewedEpochs[partition] != lease.epoch {
                changes.lost.append(LeaseRef(partition: partition, epoch: lease.epoch))
                held[partition] = nil
            }
            for ref in renewed {
                // Renewed without being held here (held before a restart of this process under the same node id):
                // acting on it needs its deliveries loaded, so it counts as gained.
                if held[ref.partition] == nil { changes.gained.append(ref) }
                held[ref.partition] = Held(epoch: ref.epoch, validUntil: validUntil)
            }
            for ref in plan.release { held[ref.partition] = nil }
        }
        changes.released = try statements.release(plan.release)

        let claimed = try statements.claim(plan.claim)
        held.withLock { held in
            for ref in claimed {
                if let previous = held[ref.partition] {
                    changes.lost.append(LeaseRef(partition: ref.partition, epoch: previous.epoch))
                }
                held[ref.partition] = Held(epoch: ref.epoch, validUntil: validUntil)
                changes.gained.append(ref)
            }
        }
        changes.lost.sort { $0.partition < $1.partition }
        changes.gained.sort { $0.partition < $1.partition }
        return changes
    }

    /// A node shutting down: it stops acting on every partition, then releases them all and removes its heartbeat,
    /// so that other nodes claim them in their next round instead of after expiry.
    public func leave() throws {
        held.withLock { $0.removeAll() }
        try statements.leave()
    }
}
