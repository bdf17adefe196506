@testable import TandemCore

/// The lease and nodes tables as the store keeps them, with the store's compare-and-set statements, on a
/// database clock that only the test moves.
struct SimulatedLeaseTable {
    let partitions: PartitionMap
    let lifetime: Duration
    var now: Timestamp
    /// Rows written so far; a partition without one was never held (the planner reads it as epoch 0).
    var rows: [Int: PartitionLease] = [:]
    var heartbeats: [NodeID: Timestamp] = [:]

    init(partitions: PartitionMap, lifetime: Duration = .seconds(6), now: Timestamp = Timestamp(milliseconds: 1_000_000)) {
        self.partitions = partitions
        self.lifetime = lifetime
        self.now = now
    }

    /// Every row, in no particular order (as a `SELECT` without `ORDER BY` may return them).
    var leases: [PartitionLease] { Array(rows.values) }

    func row(_ partition: Int) -> PartitionLease { rows[partition] ?? .neverHeld(partition) }

    /// Nodes whose heartbeat is younger than the lease lifetime.
    var liveNodes: Set<NodeID> { Set(heartbeats.filter { now - $0.value < lifetime }.keys) }

    /// The node holding each partition validly at `now`, if any.
    func validOwner(_ partition: Int) -> NodeID? {
        let row = row(partition)
        return row.isFree(at: now) ? nil : row.owner
    }

    /// Partitions held validly at `now`, per node.
    var holdings: [NodeID: Int] {
        var counts: [NodeID: Int] = [:]
        for partition in partitions.partitions {
            if let owner = validOwner(partition) { counts[owner, default: 0] += 1 }
        }
        return counts
    }

    func held(by node: NodeID) -> [Int] {
        partitions.partitions.filter { validOwner($0) == node }
    }

    /// `UPDATE … SET owner = node, epoch = epoch + 1, expires_at = now + lifetime WHERE epoch = ref.epoch AND
    /// (owner IS NULL OR expires_at <= now)` (or the insert of a missing row); the new epoch if it succeeded.
    mutating func claim(_ ref: LeaseRef, by node: NodeID) -> Int64? {
        let row = row(ref.partition)
        guard row.epoch == ref.epoch, row.isFree(at: now) else { return nil }
        rows[ref.partition] = PartitionLease(partition: ref.partition, owner: node, epoch: row.epoch + 1,
                                             expiresAt: now + lifetime)
        return row.epoch + 1
    }

    /// `UPDATE … SET expires_at = now + lifetime WHERE owner = node AND epoch = ref.epoch AND expires_at > now`.
    mutating func renew(_ ref: LeaseRef, by node: NodeID) -> Bool {
        let row = row(ref.partition)
        guard row.epoch == ref.epoch, row.isHeld(by: node, at: now) else { return false }
        rows[ref.partition] = PartitionLease(partition: ref.partition, owner: node, epoch: row.epoch,
                                             expiresAt: now + lifetime)
        return true
    }

    /// `UPDATE … SET owner = NULL WHERE owner = node AND epoch = ref.epoch`.
    mutating func release(_ ref: LeaseRef, by node: NodeID) -> Bool {
        let row = row(ref.partition)
        guard row.epoch == ref.epoch, row.owner == node else { return false }
        rows[ref.partition] = PartitionLease(partition: ref.partition, owner: nil, epoch: row.epoch, expiresAt: row.expiresAt)
        return true
    }

    /// A graceful shutdown as the store does it: every row of `node` released, its heartbeat deleted.
    mutating func shutDown(_ node: NodeID) {
        for (partition, row) in rows where row.owner == node {
            rows[partition] = PartitionLease(partition: partition, owner: nil, epoch: row.epoch, expiresAt: row.expiresAt)
        }
        heartbeats[node] = nil
    }
}

/// Nodes planning against one ``SimulatedLeaseTable`` in rounds: each round every running node heartbeats,
/// all read the same snapshot and plan, then their plans run one node after another, so that a claim fails if
/// a node earlier in the round claimed the partition first.
///
/// Each node process remembers the leases it acts on (from a successful claim or renewal until the lease's
/// expiry, or until it releases it), so that the test can check, after every node's turn, that no two
/// processes ever act on one partition at once — including a paused process that still believes in its leases.
struct SimulatedLeaseCluster {
    var table: SimulatedLeaseTable
    let maxClaimsPerRound: Int
    let maxReleasesPerRound: Int
    let renewInterval: Duration
    /// Nodes that heartbeat and plan each round.
    var running: Set<NodeID> = []
    /// Per process (running or paused): partition → (epoch, valid until) it acts on.
    var acting: [NodeID: [Int: (epoch: Int64, until: Timestamp)]] = [:]
    /// Per partition: the last node that claimed it, and how often it went from one node to another.
    var lastOwner: [Int: NodeID] = [:]
    var moves: [Int: Int] = [:]
    var failedClaims = 0
    var failedRenewals = 0
    var failedReleases = 0
    /// Descriptions of broken invariants (two processes acting on one partition, a process acting on an old
    /// epoch); empty while all is well.
    var violations: [String] = []
    var round = 0

    init(partitions: PartitionMap, maxClaimsPerRound: Int, maxReleasesPerRound: Int,
         renewInterval: Duration = .seconds(2), lifetime: Duration = .seconds(6)) {
        self.table = SimulatedLeaseTable(partitions: partitions, lifetime: lifetime)
        self.maxClaimsPerRound = maxClaimsPerRound
        self.maxReleasesPerRound = maxReleasesPerRound
        self.renewInterval = renewInterval
    }

    func planner(_ node: NodeID) throws -> LeasePlanner {
        try LeasePlanner(node: node, partitions: table.partitions, maxClaimsPerRound: maxClaimsPerRound,
                         maxReleasesPerRound: maxReleasesPerRound)
    }

    /// A process starts (or a paused one resumes, keeping what it acts on).
    mutating func start(_ node: NodeID) {
        running.insert(node)
    }

    /// The process dies: it stops heartbeating and renewing and acts on nothing any more.
    mutating func crash(_ node: NodeID) {
        running.remove(node)
        acting[node] = nil
    }

    /// The process stops (a long pause, a lost connection) but still believes in its leases until they expire.
    mutating func pause(_ node: NodeID) {
        running.remove(node)
    }

    /// One round; `order` (default: running nodes sorted, rotated by the round number) is the order in which
    /// the plans run. Returns each node's plan. The clock moves on by `renewInterval` afterwards.
    @discardableResult
    mutating func runRound(order: [NodeID]? = nil) throws -> [NodeID: LeasePlan] {
        for node in running { table.heartbeats[node] = table.now }
        let snapshot = table.leases
        let live = table.liveNodes
        var plans: [NodeID: LeasePlan] = [:]
        for node in running {
            plans[node] = try planner(node).plan(now: table.now, leases: snapshot, liveNodes: live)
        }
        let sorted = running.sorted()
        let rotation = sorted.isEmpty ? 0 : round % sorted.count
        for node in order ?? Array(sorted[rotation...] + sorted[..<rotation]) {
            guard let plan = plans[node] else { continue }
            execute(plan, by: node)
            checkInvariants()
        }
        round += 1
        table.now = table.now + renewInterval
        return plans
    }

    private mutating func execute(_ plan: LeasePlan, by node: NodeID) {
        // A node stops acting on a partition before its release is written.
        for ref in plan.release {
            acting[node]?[ref.partition] = nil
            if !table.release(ref, by: node) { failedReleases += 1 }
        }
        for ref in plan.renew {
            if table.renew(ref, by: node) {
                acting[node, default: [:]][ref.partition] = (ref.epoch, table.now + table.lifetime)
            } else {
                failedRenewals += 1
            }
        }
        for ref in plan.claim {
            guard let epoch = table.claim(ref, by: node) else {
                failedClaims += 1
                continue
            }
            acting[node, default: [:]][ref.partition] = (epoch, table.now + table.lifetime)
            if let previous = lastOwner[ref.partition], previous != node { moves[ref.partition, default: 0] += 1 }
            lastOwner[ref.partition] = node
        }
    }

    /// At most one process acts on a partition at `now`, and only under the row's current epoch.
    private mutating func checkInvariants() {
        let now = table.now
        var actor: [Int: NodeID] = [:]
        for (node, leases) in acting {
            for (partition, lease) in leases where lease.until > now {
                if let other = actor[partition] {
                    violations.append("round \(round): \(node) and \(other) both act on partition \(partition)")
                }
                actor[partition] = node
                let row = table.row(partition)
                if row.owner != node || row.epoch != lease.epoch {
                    violations.append("round \(round): \(node) acts on partition \(partition) at epoch \(lease.epoch), "
                                      + "the row has \(row.owner?.text ?? "no owner") at \(row.epoch)")
                }
            }
        }
    }

    /// Every partition held validly, and each live node holding exactly its target.
    var isBalanced: Bool {
        let targets = table.partitions.targets(for: table.liveNodes)
        let holdings = table.holdings
        let allHeld = table.partitions.partitions.allSatisfy { table.validOwner($0) != nil }
        return allHeld && holdings.allSatisfy { targets[$0.key] == $0.value }
            && targets.allSatisfy { holdings[$0.key, default: 0] == $0.value }
    }

    /// Runs rounds until ``isBalanced`` after one; the number of rounds run, or nil if not balanced after `limit`.
    mutating func runUntilBalanced(limit: Int) throws -> Int? {
        for rounds in 1...limit {
            try runRound()
            if isBalanced { return rounds }
        }
        return nil
    }
}
