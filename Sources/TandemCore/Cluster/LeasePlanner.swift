/// Decides, each round, which partition leases one node renews, claims and releases, so that the live nodes
/// come to hold every partition, each node as many as its target.
///
/// Pure: the caller passes the database's `now`, the lease rows and the live node ids it read this round;
/// nothing is read from a clock and nothing is remembered between rounds. Every node runs the same planner on
/// (nearly) the same view, and the rules are such that nodes agree without talking to each other:
///
/// - **Targets.** The live nodes, this node always among them, sorted (``NodeID``'s byte order); with `n` of
///   them, node `i` (from 0) is due `count / n + (i < count % n ? 1 : 0)` partitions
///   (``PartitionMap/targets(for:)``). The targets sum to `count`.
/// - **Held.** A node holds a partition while it is the owner and `expiresAt > now`. Only live nodes' leases
///   count towards targets; a lease of a node that is no longer live is neither counted nor free until it
///   expires.
/// - **Renew** every partition this node holds, except those it releases this round.
/// - **Claim** free partitions (no owner, or expired: `expiresAt <= now`) while this node holds fewer than its
///   target: at most the difference, at most `maxClaimsPerRound`. Partitions with no owner first, then expired
///   ones; within each, in partition order from place `node.stableHash mod k` of the `k` candidates
///   (``NodeID/stableHash``), wrapping around, so that nodes starting together mostly try different
///   partitions. A place among the candidates, not a partition number: free partitions often come as one run
///   (a departed node's), and every node whose number fell outside the run would start at its first partition.
///   This node's own expired leases are expired ones like any other: claimed anew with a new epoch, never
///   renewed, because the node stopped acting on them when they ran out.
/// - **Release** partitions this node holds beyond its target, only while some live node holds fewer than its
///   target *and* the free partitions do not cover those nodes' shortfall (otherwise they fill up from the free
///   ones and a release would only cause churn): at most the excess, at most the uncovered part of the
///   shortfall, at most `maxReleasesPerRound`. Highest partition numbers first. (As the targets sum to `count`,
///   the uncovered shortfall is the live nodes' total excess plus the partitions still held by nodes no longer
///   live, so a node above its target always passes this test: releasing never waits for free partitions.)
///
/// A node is below its target, at it or above it, so it never claims and releases in one round; no partition
/// appears in two lists of a plan. A node never releases below its target and never claims beyond it, so while
/// the live set stays the same and every node renews in time, a partition moves at most once.
///
/// The input is taken as the store read it: rows for partitions outside `0..<count` are ignored, and of two
/// rows for one partition the first is used; a partition without a row is free with epoch 0 (never held).
///
/// Safety does not rest on the planner: the store's compare-and-set statements let one claim of an epoch
/// succeed and renew only leases that have not expired. The planner decides who tries what; a stale view, or
/// nodes that disagree on who is live, costs failed claims and extra rounds, never a second owner.
///
/// For example, 256 partitions, 32 claims and 16 releases a round: node `a` alone on an empty table claims 32
/// partitions a round for 8 rounds, then only renews. Node `b` joins; both are due 128. `a` releases 16 a
/// round, 255 down to 128; `b` claims each round what `a` released the round before (and, if it read the table
/// after `a`'s release in the same round, those too), until both hold 128 and only renew.
public struct LeasePlanner: Sendable {
    /// The node this planner plans for.
    public let node: NodeID
    public let partitions: PartitionMap
    /// At most this many claims a round (≥ 1): bounds one round's writes and how fast a starting node grabs
    /// partitions that a node starting a moment later is also due.
    public let maxClaimsPerRound: Int
    /// At most this many releases a round (≥ 1): bounds how much work pauses at once when a node joins.
    public let maxReleasesPerRound: Int

    public init(node: NodeID, partitions: PartitionMap, maxClaimsPerRound: Int,
                maxReleasesPerRound: Int) throws(ClusterSettingsError) {
        guard maxClaimsPerRound >= 1 else { throw .maxClaimsPerRound(maxClaimsPerRound) }
        guard maxReleasesPerRound >= 1 else { throw .maxReleasesPerRound(maxReleasesPerRound) }
        self.node = node
        self.partitions = partitions
        self.maxClaimsPerRound = maxClaimsPerRound
        self.maxReleasesPerRound = maxReleasesPerRound
    }

    /// This round's plan for ``node``, from the database's `now`, the lease rows as read (any order) and the
    /// nodes whose heartbeat is younger than the lease lifetime (``node`` counts as live whether listed or not).
    public func plan(now: Timestamp, leases: [PartitionLease], liveNodes: Set<NodeID>) -> LeasePlan {
        var live = liveNodes
        live.insert(node)
        let targets = partitions.targets(for: live)
        let target = targets[node] ?? 0

        // One pass in partition order, so every list below is sorted by partition.
        var held: [NodeID: Int] = [:]
        var mine: [LeaseRef] = []
        var unowned: [LeaseRef] = []
        var expired: [LeaseRef] = []
        for row in table(leases) {
            if row.owner == nil {
                unowned.append(row.ref)
            } else if row.isFree(at: now) {
                expired.append(row.ref)
            } else if let owner = row.owner, live.contains(owner) {
                held[owner, default: 0] += 1
                if owner == node { mine.append(row.ref) }
            }
        }

        if mine.count < target {
            let wanted = min(target - mine.count, maxClaimsPerRound)
            let claim = (rotatedToOwnPlace(unowned) + rotatedToOwnPlace(expired)).prefix(wanted)
            return LeasePlan(renew: mine, claim: Array(claim))
        }
        let excess = mine.count - target
        guard excess > 0 else { return LeasePlan(renew: mine) }
        let shortfall = targets.reduce(0) { sum, entry in sum + max(0, entry.value - held[entry.key, default: 0]) }
        let uncovered = shortfall - unowned.count - expired.count
        let releasing = max(0, min(excess, uncovered, maxReleasesPerRound))
        return LeasePlan(renew: Array(mine.dropLast(releasing)), release: mine.suffix(releasing).reversed())
    }

    /// One row per partition, in partition order: the first row read for each partition in `0..<count`, and
    /// ``PartitionLease/neverHeld(_:)`` where none was read.
    private func table(_ leases: [PartitionLease]) -> [PartitionLease] {
        var rows = partitions.partitions.map(PartitionLease.neverHeld)
        var seen = [Bool](repeating: false, count: partitions.count)
        for lease in leases where partitions.partitions.contains(lease.partition) && !seen[lease.partition] {
            rows[lease.partition] = lease
            seen[lease.partition] = true
        }
        return rows
    }

    /// `refs` from place `node.stableHash mod refs.count`, wrapping around.
    private func rotatedToOwnPlace(_ refs: [LeaseRef]) -> [LeaseRef] {
        guard !refs.isEmpty else { return [] }
        let start = Int(node.stableHash % UInt64(refs.count))
        return Array(refs[start...] + refs[..<start])
    }
}
