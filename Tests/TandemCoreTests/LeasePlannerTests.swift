import Testing
@testable import TandemCore

@Suite("Partition lease planner")
struct LeasePlannerTests {
    static let now = Timestamp(milliseconds: 1_000_000)
    static let later = Timestamp(milliseconds: 1_006_000)

    static func lease(_ partition: Int, _ owner: NodeID?, epoch: Int64 = 1, expiresAt: Timestamp = later) -> PartitionLease {
        PartitionLease(partition: partition, owner: owner, epoch: epoch, expiresAt: expiresAt)
    }

    /// A cluster of `names` that has run from an empty table to balance.
    static func balancedCluster(_ names: [String], maxClaimsPerRound: Int = 16,
                                maxReleasesPerRound: Int = 8) throws -> (SimulatedLeaseCluster, [NodeID]) {
        let nodes = try names.map { try NodeID($0) }
        var cluster = SimulatedLeaseCluster(partitions: try PartitionMap(), maxClaimsPerRound: maxClaimsPerRound,
                                            maxReleasesPerRound: maxReleasesPerRound)
        nodes.forEach { cluster.start($0) }
        let rounds = try cluster.runUntilBalanced(limit: 40)
        try #require(rounds != nil)
        return (cluster, nodes)
    }

    // MARK: - Validation and targets

    @Test("node ids are 1 to 64 characters of letters, digits, '.', '_' and '-'",
          arguments: ["a", "node-1", "pod_7.example.org", "A-Z.a-z_0-9", String(repeating: "x", count: 64)])
    func nodeIDAccepts(text: String) throws {
        #expect(try NodeID(text).text == text)
        #expect(try NodeID(text).description == text)
    }

    @Test("other node ids are refused, naming the value",
          arguments: ["", String(repeating: "x", count: 65), "node 1", "nöde", "node/1", "node:1", "node\n", "ｎode"])
    func nodeIDRefuses(text: String) {
        #expect(throws: ClusterSettingsError.nodeID(text)) { try NodeID(text) }
        #expect(ClusterSettingsError.nodeID(text).description.hasPrefix("a node id must be 1 to 64 characters"))
    }

    @Test("node ids sort by their bytes, as PostgreSQL's \"C\" collation does")
    func nodeIDOrder() throws {
        let ids = try ["node-9", "node-10", "B", "a", "a.b", "a-b", "a_b"].map { try NodeID($0) }
        #expect(ids.sorted().map(\.text) == ["B", "a", "a-b", "a.b", "a_b", "node-10", "node-9"])
    }

    @Test("the stable hash is fixed by the id's bytes: the same in every process and build")
    func stableHash() throws {
        // FNV-1a 64 then MurmurHash3's fmix64, computed independently; a change here moves every node's offset.
        #expect(try NodeID("a").stableHash == 0x82A2_A958_A9BE_CE5B)
        #expect(try NodeID("node-1").stableHash == 0x91DD_3F4C_04E1_EB05)
        #expect(try NodeID("tandem-3").stableHash == 0x62DE_E2F8_C41D_BD99)
        let offsets = try (0..<8).map { try NodeID("node-\($0)").stableHash % 256 }
        #expect(Set(offsets).count >= 7, "ids differing in their last character start far apart: \(offsets)")
    }

    @Test("partition counts from 1 to 4096 are accepted, 256 by default")
    func partitionMapValidation() throws {
        #expect(try PartitionMap().count == 256)
        #expect(try PartitionMap(count: 1).count == 1)
        #expect(try PartitionMap(count: 4096).count == 4096)
        for count in [0, -1, 4097, Int.min] {
            #expect(throws: ClusterSettingsError.partitionCount(count)) { try PartitionMap(count: count) }
        }
        #expect(ClusterSettingsError.partitionCount(0).description == "the partition count must be from 1 to 4096, got 0")
    }

    @Test("a delivery's partition is its key mod the count")
    func partitionOfKey() throws {
        let map = try PartitionMap(count: 256)
        #expect(map.partition(of: DeliveryKey(1)) == 1)
        #expect(map.partition(of: DeliveryKey(255)) == 255)
        #expect(map.partition(of: DeliveryKey(256)) == 0)
        #expect(map.partition(of: DeliveryKey(1_000_000_007)) == Int(1_000_000_007 % 256))
        #expect(map.partition(of: DeliveryKey(Int64.max)) == 255)
        #expect(try PartitionMap(count: 7).partition(of: DeliveryKey(Int64.max)) == Int(Int64.max % 7))
        #expect(try PartitionMap(count: 1).partition(of: DeliveryKey(42)) == 0)
        // Never issued, but still in range.
        #expect(try PartitionMap(count: 7).partition(of: DeliveryKey(-1)) == 6)
    }

    @Test("a planner allows at least one claim and one release a round")
    func plannerValidation() throws {
        let node = try NodeID("a")
        let map = try PartitionMap()
        #expect(throws: ClusterSettingsError.maxClaimsPerRound(0)) {
            try LeasePlanner(node: node, partitions: map, maxClaimsPerRound: 0, maxReleasesPerRound: 1)
        }
        #expect(throws: ClusterSettingsError.maxReleasesPerRound(-3)) {
            try LeasePlanner(node: node, partitions: map, maxClaimsPerRound: 1, maxReleasesPerRound: -3)
        }
    }

    @Test("targets sum to the count and differ by at most one, the first nodes in order taking the remainder",
          arguments: 1...10)
    func targetsSumToCount(nodeCount: Int) throws {
        var rng = SplitMix64(seed: UInt64(nodeCount))
        let counts = [1, 2, 3, 7, 9, 10, 255, 256, 257, 1000, 4095, 4096] + (0..<20).map { _ in 1 + Int(rng.below(4096)) }
        let nodes = try (0..<nodeCount).map { try NodeID("n\(rng.below(1_000_000))-\($0)") }
        let sorted = nodes.sorted()
        for count in counts {
            let targets = try PartitionMap(count: count).targets(for: Set(nodes))
            #expect(targets.count == nodeCount)
            #expect(targets.values.reduce(0, +) == count, "count \(count)")
            let inOrder = sorted.map { targets[$0] ?? -1 }
            #expect(inOrder == inOrder.sorted(by: >), "count \(count): \(inOrder)")
            #expect((inOrder.first ?? 0) - (inOrder.last ?? 0) <= 1, "count \(count): \(inOrder)")
            #expect(inOrder.first == count / nodeCount + (count % nodeCount == 0 ? 0 : 1))
        }
    }

    @Test("256 partitions over three nodes are 86, 85, 85 in id order; no nodes, no targets")
    func targetsExample() throws {
        let map = try PartitionMap()
        let targets = map.targets(for: [try NodeID("c"), try NodeID("a"), try NodeID("b")])
        #expect(targets == [try NodeID("a"): 86, try NodeID("b"): 85, try NodeID("c"): 85])
        #expect(map.targets(for: []).isEmpty)
    }

    // MARK: - One plan

    @Test("a node's own expired lease is claimed anew with a new epoch, never renewed")
    func ownExpiredLeaseIsClaimed() throws {
        let a = try NodeID("a")
        let planner = try LeasePlanner(node: a, partitions: PartitionMap(count: 4), maxClaimsPerRound: 4, maxReleasesPerRound: 4)
        let leases = [
            Self.lease(0, a, epoch: 3), Self.lease(1, a, epoch: 5, expiresAt: Self.now),  // ran out exactly now
            Self.lease(2, a, epoch: 7, expiresAt: Timestamp(milliseconds: Self.now.milliseconds - 1)), Self.lease(3, a, epoch: 2),
        ]
        let plan = planner.plan(now: Self.now, leases: leases, liveNodes: [a])
        #expect(plan.renew == [LeaseRef(partition: 0, epoch: 3), LeaseRef(partition: 3, epoch: 2)])
        #expect(Set(plan.claim) == [LeaseRef(partition: 1, epoch: 5), LeaseRef(partition: 2, epoch: 7)])
        #expect(plan.release.isEmpty)

        var table = SimulatedLeaseTable(partitions: try PartitionMap(count: 4), now: Self.now)
        for lease in leases { table.rows[lease.partition] = lease }
        let renewed = table.renew(LeaseRef(partition: 1, epoch: 5), by: a)
        #expect(!renewed, "the store refuses to renew an expired lease")
        let epochs = plan.claim.map { table.claim($0, by: a) }
        #expect(Set(epochs) == [6, 8])
    }

    @Test("the node counts as live even when the nodes table does not list it")
    func selfIsLive() throws {
        let a = try NodeID("a"), b = try NodeID("b")
        let planner = try LeasePlanner(node: b, partitions: PartitionMap(count: 10), maxClaimsPerRound: 100, maxReleasesPerRound: 100)
        let plan = planner.plan(now: Self.now, leases: [], liveNodes: [a])
        #expect(plan.claim.count == 5)
        #expect(planner.plan(now: Self.now, leases: [], liveNodes: []).claim.count == 10)
    }

    @Test("claims take partitions without an owner first, then expired ones, each from the node's place, wrapping")
    func claimOrder() throws {
        let a = try NodeID("a"), gone = try NodeID("gone")
        let map = try PartitionMap(count: 16)
        let planner = try LeasePlanner(node: a, partitions: map, maxClaimsPerRound: 16, maxReleasesPerRound: 1)
        // Even partitions: released (no owner); odd partitions: expired leases of a node gone.
        let leases = map.partitions.map { partition in
            partition.isMultiple(of: 2) ? Self.lease(partition, nil, epoch: 4)
                : Self.lease(partition, gone, epoch: 9, expiresAt: Self.now)
        }
        let plan = planner.plan(now: Self.now, leases: leases, liveNodes: [a])
        // 8 of each kind: a starts at place stableHash mod 8 (3 for "a") of each, in partition order.
        #expect(a.stableHash % 8 == 3)
        let expected = [6, 8, 10, 12, 14, 0, 2, 4].map { LeaseRef(partition: $0, epoch: 4) }
            + [7, 9, 11, 13, 15, 1, 3, 5].map { LeaseRef(partition: $0, epoch: 9) }
        #expect(plan.claim == expected)

        let limited = try LeasePlanner(node: a, partitions: map, maxClaimsPerRound: 3, maxReleasesPerRound: 1)
        #expect(limited.plan(now: Self.now, leases: leases, liveNodes: [a]).claim == Array(expected.prefix(3)))
    }

    @Test("nodes starting together on an empty table mostly try different partitions first")
    func offsetsSpreadClaims() throws {
        let nodes = try (1...3).map { try NodeID("tandem-\($0)") }
        let firstClaims = try nodes.map { node in
            try Set(LeasePlanner(node: node, partitions: PartitionMap(), maxClaimsPerRound: 16, maxReleasesPerRound: 8)
                .plan(now: Self.now, leases: [], liveNodes: Set(nodes)).claim.map(\.partition))
        }
        // Their hashes mod 256 are 15, 70 and 153: three disjoint runs of 16.
        #expect(firstClaims == [Set(15..<31), Set(70..<86), Set(153..<169)])
    }

    @Test("a node claims only up to its target, never from a live or a dead node's valid lease")
    func claimsOnlyFree() throws {
        let a = try NodeID("a"), b = try NodeID("b"), dead = try NodeID("dead")
        let planner = try LeasePlanner(node: a, partitions: PartitionMap(count: 8), maxClaimsPerRound: 8, maxReleasesPerRound: 8)
        // b holds 0–2, a node no longer live still holds 3–4 (not expired), 5–7 are free. a is due 4.
        let leases = [Self.lease(0, b), Self.lease(1, b), Self.lease(2, b), Self.lease(3, dead), Self.lease(4, dead)]
        let plan = planner.plan(now: Self.now, leases: leases, liveNodes: [a, b])
        #expect(Set(plan.claim.map(\.partition)) == [5, 6, 7])
        #expect(plan.claim.allSatisfy { $0.epoch == 0 })
        #expect(plan.renew.isEmpty && plan.release.isEmpty)
    }

    @Test("rows outside 0..<count and second rows for a partition are ignored; missing rows are free at epoch 0")
    func malformedInput() throws {
        let a = try NodeID("a"), b = try NodeID("b")
        let planner = try LeasePlanner(node: a, partitions: PartitionMap(count: 4), maxClaimsPerRound: 4, maxReleasesPerRound: 4)
        let leases = [
            Self.lease(1, b, epoch: 3),
            Self.lease(1, nil, epoch: 9),  // a second row for 1: ignored
            Self.lease(4, a, epoch: 2), Self.lease(-1, a, epoch: 2), Self.lease(Int.max, nil),  // out of range
            Self.lease(2, a, epoch: 6),
        ]
        let plan = planner.plan(now: Self.now, leases: leases, liveNodes: [])
        #expect(plan.renew == [LeaseRef(partition: 2, epoch: 6)])
        #expect(Set(plan.claim) == [LeaseRef(partition: 0, epoch: 0), LeaseRef(partition: 3, epoch: 0)])
        #expect(plan.release.isEmpty)
    }

    @Test("a node above its target releases its highest partitions, at most the excess and the per-round limit")
    func releases() throws {
        let a = try NodeID("a"), b = try NodeID("b")
        let map = try PartitionMap(count: 8)
        let all = map.partitions.map { Self.lease($0, a, epoch: Int64($0) + 1) }
        let refs = all.map(\.ref)

        let slow = try LeasePlanner(node: a, partitions: map, maxClaimsPerRound: 8, maxReleasesPerRound: 3)
        let plan = slow.plan(now: Self.now, leases: all, liveNodes: [a, b])
        #expect(plan.release == [refs[7], refs[6], refs[5]])
        #expect(plan.renew == Array(refs[0...4]))
        #expect(plan.claim.isEmpty)

        let fast = try LeasePlanner(node: a, partitions: map, maxClaimsPerRound: 8, maxReleasesPerRound: 100)
        #expect(fast.plan(now: Self.now, leases: all, liveNodes: [a, b]).release == [refs[7], refs[6], refs[5], refs[4]])
        // Alone, a is due all eight: nothing to release.
        #expect(fast.plan(now: Self.now, leases: all, liveNodes: [a]) == LeasePlan(renew: refs))
    }

    @Test("releases also make room for partitions a node no longer live still holds")
    func releasesBesideDeadNodesLeases() throws {
        let a = try NodeID("a"), b = try NodeID("b"), dead = try NodeID("dead")
        let planner = try LeasePlanner(node: a, partitions: PartitionMap(count: 8), maxClaimsPerRound: 8, maxReleasesPerRound: 8)
        // a holds 0–4 (due 4), the dead node 5–7 until they expire, b nothing.
        let leases = (0...4).map { Self.lease($0, a) } + (5...7).map { Self.lease($0, dead) }
        let plan = planner.plan(now: Self.now, leases: leases, liveNodes: [a, b])
        #expect(plan.release == [LeaseRef(partition: 4, epoch: 1)])
        #expect(plan.renew.map(\.partition) == [0, 1, 2, 3])
    }

    // MARK: - Rounds

    @Test("one node alone claims the per-round limit round after round until it holds everything, then only renews")
    func oneNodeClaimsAll() throws {
        let a = try NodeID("a")
        var cluster = SimulatedLeaseCluster(partitions: try PartitionMap(), maxClaimsPerRound: 32, maxReleasesPerRound: 8)
        cluster.start(a)
        for round in 0..<8 {
            let plans = try cluster.runRound()
            let plan = try #require(plans[a])
            #expect(plan.claim.count == 32, "round \(round)")
            #expect(plan.renew.count == 32 * round, "round \(round)")
            #expect(plan.release.isEmpty)
            #expect(cluster.table.held(by: a).count == 32 * (round + 1))
        }
        for _ in 0..<4 {
            let plans = try cluster.runRound()
            let plan = try #require(plans[a])
            #expect(plan.renew.map(\.partition) == Array(0..<256))
            #expect(plan.claim.isEmpty && plan.release.isEmpty)
        }
        #expect(cluster.isBalanced)
        #expect(cluster.table.rows.values.allSatisfy { $0.epoch == 1 }, "every partition claimed exactly once")
        #expect(cluster.failedClaims == 0 && cluster.failedRenewals == 0 && cluster.violations.isEmpty)
    }

    @Test("three nodes starting together on an empty table converge to 86/85/85 without ever sharing a partition")
    func threeNodesStartTogether() throws {
        let nodes = try ["tandem-1", "tandem-2", "tandem-3"].map { try NodeID($0) }
        var cluster = SimulatedLeaseCluster(partitions: try PartitionMap(), maxClaimsPerRound: 16, maxReleasesPerRound: 8)
        nodes.forEach { cluster.start($0) }
        // Every round the first node in the round's order that still has room gets all its claims (nobody claimed
        // before it): at worst 16 per round, 5 rounds per node, plus a short round each for the last 6, 5 and 5.
        let balancedAfter = try cluster.runUntilBalanced(limit: 18)
        let rounds = try #require(balancedAfter)
        #expect(rounds >= 6, "86 partitions at 16 a round take at least 6 rounds")
        let sorted = nodes.sorted()
        #expect(cluster.table.holdings == [sorted[0]: 86, sorted[1]: 85, sorted[2]: 85])
        #expect(cluster.violations.isEmpty, "\(cluster.violations.prefix(3))")
        #expect(cluster.moves.isEmpty, "nothing released, nothing moved")
        #expect(cluster.failedRenewals == 0 && cluster.failedReleases == 0)
        // Balanced is a fixed point: only renewals from here on.
        for plan in try cluster.runRound().values { #expect(plan.claim.isEmpty && plan.release.isEmpty) }
        #expect(cluster.isBalanced)
    }

    @Test("a node joining a balanced pair: the pair release their highest partitions, the newcomer claims them, each moves once")
    func nodeJoins() throws {
        var (cluster, nodes) = try Self.balancedCluster(["tandem-1", "tandem-2"])
        let before = Dictionary(uniqueKeysWithValues: nodes.map { ($0, cluster.table.held(by: $0)) })
        #expect(before.values.map(\.count) == [128, 128])
        let newcomer = try NodeID("tandem-3")
        cluster.moves = [:]
        cluster.start(newcomer)
        // 43 releases at 8 a round take 6 rounds; the newcomer claims them one round behind, alone, unopposed.
        let balancedAfter = try cluster.runUntilBalanced(limit: 12)
        let rounds = try #require(balancedAfter)
        #expect(rounds == 7)

        let targets = try PartitionMap().targets(for: Set(nodes + [newcomer]))
        #expect(cluster.table.holdings == targets)
        #expect(cluster.moves.values.allSatisfy { $0 == 1 }, "no partition moves twice")
        #expect(cluster.moves.count == targets[newcomer], "only the newcomer's share moves")
        for node in nodes {
            let kept = cluster.table.held(by: node)
            let given = Set(before[node] ?? []).subtracting(kept)
            #expect(Set(kept).isSubset(of: before[node] ?? []), "\(node) claimed nothing")
            #expect((kept.max() ?? 0) < (given.min() ?? Int.max), "\(node) gave up its highest partitions")
        }
        #expect(cluster.violations.isEmpty, "\(cluster.violations.prefix(3))")
        #expect(cluster.failedRenewals == 0 && cluster.failedReleases == 0)
    }

    @Test("a node that dies: once its leases expire the survivors claim all its partitions, one epoch up, and balance")
    func nodeDies() throws {
        var (cluster, nodes) = try Self.balancedCluster(["tandem-1", "tandem-2", "tandem-3"])
        let dead = nodes[2]
        let orphaned = Dictionary(uniqueKeysWithValues: cluster.table.held(by: dead).map { ($0, cluster.table.row($0).epoch) })
        #expect(orphaned.count == 85)
        cluster.crash(dead)

        // Until its last lease runs out (3 rounds of 2 s against a 6 s lifetime), nobody touches its partitions.
        for _ in 0..<2 {
            try cluster.runRound()
            #expect(orphaned.keys.allSatisfy { cluster.table.row($0).owner == dead })
        }
        let balancedAfter = try cluster.runUntilBalanced(limit: 10)
        let rounds = try #require(balancedAfter)
        #expect(rounds >= 3, "85 partitions over two nodes at 16 claims a round")
        #expect(!cluster.table.liveNodes.contains(dead))
        #expect(cluster.table.holdings == [nodes[0]: 128, nodes[1]: 128])
        for (partition, epoch) in orphaned {
            #expect(cluster.table.row(partition).epoch == epoch + 1, "partition \(partition)")
            #expect(cluster.table.validOwner(partition) != dead)
        }
        #expect(cluster.violations.isEmpty, "\(cluster.violations.prefix(3))")
        #expect(cluster.failedRenewals == 0 && cluster.failedReleases == 0)
    }

    @Test("a node shut down gracefully (the store releases its rows): the others start claiming them the next round")
    func gracefulShutdown() throws {
        var (cluster, nodes) = try Self.balancedCluster(["tandem-1", "tandem-2", "tandem-3"], maxClaimsPerRound: 64)
        let leaving = nodes[2]
        let released = Set(cluster.table.held(by: leaving))
        cluster.crash(leaving)
        cluster.table.shutDown(leaving)

        let plans = try cluster.runRound()
        for survivor in nodes.prefix(2) {
            let plan = try #require(plans[survivor])
            let due = 128 - 85 - (survivor == nodes.sorted().first ? 1 : 0)
            #expect(plan.claim.count == due, "\(survivor) claims its whole shortfall at once")
            #expect(Set(plan.claim.map(\.partition)).isSubset(of: released))
        }
        // The first survivor in the round's order got all its claims, so it is done; the other lost the claims
        // that collided, and the partitions left free are exactly its remaining shortfall, taken the round after.
        #expect(nodes.prefix(2).contains { cluster.table.held(by: $0).count == 128 })
        let balancedAfter = try cluster.runUntilBalanced(limit: 1)
        #expect(balancedAfter == 1)
        #expect(cluster.table.holdings == [nodes[0]: 128, nodes[1]: 128])
        #expect(cluster.violations.isEmpty && cluster.failedRenewals == 0 && cluster.failedReleases == 0)
    }
}
