import Testing
import TandemCore
import TandemEngine
import TandemTestSupport
@testable import TandemPostgres

/// Several nodes' lease keepers on one real PostgreSQL database, rounds driven by the test (each round's monotonic
/// start given, never waited for); a node's death is the database's clock moving past its leases, set in the rows.
@Suite("Partition lease keepers on PostgreSQL")
struct PGLeaseKeeperTests {
    private static let lifetime = Duration.seconds(6)
    private static let margin = Duration.seconds(1)

    private struct Cluster {
        let admin: PGConnection
        let keepers: [PartitionLeaseKeeper]
    }

    private func cluster(_ names: [String]) async throws -> Cluster {
        let conninfo = try await PostgresCluster.shared().freshDatabase("keepers")
        let admin = try PGConnection(conninfo)
        try PGSchema.migrate(admin)
        let keepers = try names.enumerated().map { index, name in
            let node = try NodeID(name)
            let statements = PGPartitionLeases(connection: try PGConnection(conninfo), node: node, lifetimeMilliseconds: 6_000)
            let planner = try LeasePlanner(node: node, partitions: try PartitionMap(count: 256), maxClaimsPerRound: 32,
                                           maxReleasesPerRound: 16)
            return PartitionLeaseKeeper(statements: statements, planner: planner, address: "127.0.0.1:\(9000 + index)",
                                        lifetime: Self.lifetime, margin: Self.margin)
        }
        return Cluster(admin: admin, keepers: keepers)
    }

    /// Runs `rounds` rounds of each keeper in turn, every 2 s of the monotonic clock from `start`; returns the time of
    /// the last round.
    @discardableResult
    private func run(_ keepers: [PartitionLeaseKeeper], rounds: Int, from start: ContinuousClock.Instant) throws -> ContinuousClock.Instant {
        var time = start
        for round in 0..<rounds {
            time = start + .seconds(2 * round)
            for keeper in keepers { try keeper.round(startedAt: time) }
        }
        return time
    }

    /// Partition → owner as the database has it, for leases not expired.
    private func owners(_ admin: PGConnection) throws -> [Int: String] {
        var owners: [Int: String] = [:]
        for row in try admin.execute("SELECT partition, owner FROM partition_leases WHERE owner IS NOT NULL AND expires_at > now()").rows {
            owners[Int(row[0]!)!] = row[1]!
        }
        return owners
    }

    @Test("three nodes starting together end with 86, 85 and 85 partitions, disjoint, as the database has them")
    func converge() async throws {
        let cluster = try await cluster(["node-a", "node-b", "node-c"])
        let start = ContinuousClock.now
        let last = try run(cluster.keepers, rounds: 20, from: start)
        let held = cluster.keepers.map { $0.partitions(at: last) }
        #expect(held.map(\.count).sorted() == [85, 85, 86])
        #expect(Set(held.flatMap { $0.map(\.partition) }).count == 256)
        let owners = try owners(cluster.admin)
        for (keeper, partitions) in zip(cluster.keepers, held) {
            #expect(partitions.allSatisfy { owners[$0.partition] == keeper.planner.node.text })
        }
        // Stable: another round moves nothing.
        for keeper in cluster.keepers {
            #expect(try keeper.round(startedAt: last + .seconds(2)) == PartitionLeaseKeeper.Changes())
        }
    }

    @Test("a node that dies: its leases run out on the database's clock, the others take them with a new epoch; its own keeper stops acting at its validity")
    func takeover() async throws {
        let cluster = try await cluster(["node-a", "node-b", "node-c"])
        let (a, b, c) = (cluster.keepers[0], cluster.keepers[1], cluster.keepers[2])
        let start = ContinuousClock.now
        var last = try run(cluster.keepers, rounds: 20, from: start)
        let lostByC = c.partitions(at: last)
        // c stops; 7 s pass on the database's clock for its heartbeat and leases.
        try cluster.admin.execute("UPDATE partition_leases SET expires_at = now() - interval '1 second' WHERE owner = 'node-c'")
        try cluster.admin.execute("UPDATE cluster_nodes SET heartbeat_at = now() - interval '7 seconds' WHERE node = 'node-c'")
        var gained: [LeaseRef] = []
        for round in 1...10 {
            let time = last + .seconds(2 * round)
            gained += try a.round(startedAt: time).gained + b.round(startedAt: time).gained
        }
        last = last + .seconds(20)
        #expect(a.partitions(at: last).count == 128 && b.partitions(at: last).count == 128)
        let epochs = Dictionary(uniqueKeysWithValues: lostByC.map { ($0.partition, $0.epoch) })
        let taken = gained.filter { epochs[$0.partition] != nil }
        #expect(taken.count == lostByC.count)
        #expect(taken.allSatisfy { $0.epoch == epochs[$0.partition]! + 1 })
        // c never ran another round: its leases ran out here too, lifetime − margin after its last round.
        #expect(c.partitions(at: start + .seconds(38) + Self.lifetime - Self.margin).isEmpty)
        #expect(c.epoch(of: lostByC[0].partition, at: start + .seconds(38) + .seconds(4)) == lostByC[0].epoch)
    }

    @Test("a node leaving releases everything at once: the others claim it in their next rounds, without waiting for expiry")
    func leave() async throws {
        let cluster = try await cluster(["node-a", "node-b"])
        let (a, b) = (cluster.keepers[0], cluster.keepers[1])
        let last = try run(cluster.keepers, rounds: 15, from: ContinuousClock.now)
        #expect(a.partitions(at: last).count == 128)
        try b.leave()
        #expect(b.partitions(at: last).isEmpty)
        var time = last
        for _ in 1...6 {
            time = time + .seconds(2)
            try a.round(startedAt: time)
        }
        #expect(a.partitions(at: time).count == 256)
        #expect(try owners(cluster.admin).values.allSatisfy { $0 == "node-a" })
    }
}
