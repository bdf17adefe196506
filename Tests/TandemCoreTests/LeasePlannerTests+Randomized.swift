import Testing
@testable import TandemCore

extension LeasePlannerTests {
    /// Membership changes in bursts, each followed by a quiet stretch of at least `stableRounds` rounds, from
    /// which on the holding must be balanced.
    ///
    /// Why `stableRounds` suffices: a stopped node's heartbeat and leases run out within 3 rounds (a 6 s lifetime
    /// at 2 s rounds). From then on every round until balance either releases (every node above its target
    /// releases up to `maxReleasesPerRound`: at most count / maxReleases rounds), or claims in the round after a
    /// release, or gives the first node in the round's order that is below its target all its claims unopposed
    /// — `maxClaimsPerRound` of them (at most count / maxClaims rounds) or all it lacks (once per node). Plus 2
    /// rounds of slack.
    @Test("nodes join, die, pause and return at random: never two acting on a partition; balanced once stable",
          arguments: zip([0x1EA5_E001, 0x1EA5_E002, 0x1EA5_E003, 0x1EA5_E004, 0x1EA5_E005, 0x1EA5_E006] as [UInt64],
                         [1, 7, 64, 100, 256, 256]))
    func randomMembership(seed: UInt64, count: Int) throws {
        var rng = SplitMix64(seed: seed)
        let maxClaims = 4 + Int(rng.below(32))
        let maxReleases = 2 + Int(rng.below(16))
        let pool = try (0..<6).map { try NodeID("node-\($0)") }
        let stableRounds = 3 + (count + maxReleases - 1) / maxReleases + (count + maxClaims - 1) / maxClaims + pool.count + 2
        let context = "seed \(seed): \(count) partitions, \(maxClaims) claims, \(maxReleases) releases a round"

        var cluster = SimulatedLeaseCluster(partitions: try PartitionMap(count: count), maxClaimsPerRound: maxClaims,
                                            maxReleasesPerRound: maxReleases)
        var stopped: Set<NodeID> = []  // ever ran and stopped: a start is a return
        var events = (joins: 0, returns: 0, crashes: 0, pauses: 0)
        var balancedChecks = 0

        for _ in 0..<30 {
            // A burst: a change in about one round of three, for 0–11 rounds.
            for _ in 0..<rng.below(12) {
                if rng.below(3) == 0 {
                    let node = pool[Int(rng.below(UInt64(pool.count)))]
                    if !cluster.running.contains(node) {
                        if stopped.contains(node) { events.returns += 1 } else { events.joins += 1 }
                        cluster.start(node)
                    } else if cluster.running.count > 1 {
                        stopped.insert(node)
                        if rng.below(2) == 0 {
                            events.crashes += 1
                            cluster.crash(node)
                        } else {
                            events.pauses += 1
                            cluster.pause(node)
                        }
                    }
                }
                if cluster.running.isEmpty { cluster.start(pool[0]) }
                try cluster.runRound(order: cluster.running.sorted().shuffled(using: &rng))
            }
            if cluster.running.isEmpty { cluster.start(pool[0]) }

            // A quiet stretch: balanced from `stableRounds` on, and staying so.
            for stable in 1...(stableRounds + Int(rng.below(8))) {
                try cluster.runRound(order: cluster.running.sorted().shuffled(using: &rng))
                guard stable >= stableRounds else { continue }
                balancedChecks += 1
                #expect(cluster.table.liveNodes == cluster.running, "\(context)")
                let state = "holdings \(cluster.table.holdings), running \(cluster.running.sorted())"
                #expect(cluster.isBalanced, "\(context): not balanced \(stable) rounds after the last change: \(state)")
            }
            if !cluster.violations.isEmpty { break }
        }

        #expect(cluster.violations.isEmpty, "\(context): \(cluster.violations.prefix(3))")
        #expect(cluster.failedRenewals == 0 && cluster.failedReleases == 0, "\(context)")
        // The run must have exercised every kind of change and many balanced rounds.
        #expect(events.joins >= 3 && events.returns >= 5 && events.crashes >= 3 && events.pauses >= 3, "\(context): \(events)")
        #expect(balancedChecks >= 100, "\(context)")
        #expect(cluster.moves.values.reduce(0, +) > 0, "\(context)")
    }
}
