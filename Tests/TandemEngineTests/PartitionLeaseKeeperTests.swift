import Testing
import TandemCore
@testable import TandemEngine

/// The keeper's own bookkeeping, over scripted statements: validity on the node's monotonic clock, what a failed
/// round leaves, and what counts as gained and lost. (The statements on a real database: PGLeaseKeeperTests.)
@Suite("Partition lease keeper")
struct PartitionLeaseKeeperTests {
    /// Statements that answer what the test scripts: every lease of a 4-partition table, and the outcome of the next
    /// renewal and claim (all asked, unless scripted otherwise); `failing` makes every call throw.
    final class Script: PartitionLeaseStatements {
        struct Unreachable: Error {}
        let node: NodeID
        var leases: [PartitionLease]
        var now = Timestamp(milliseconds: 1_000_000)
        var renewed: [LeaseRef]?
        var claimed: [LeaseRef]?
        var failing = false
        var released: [LeaseRef] = []
        var left = false

        init(node: NodeID) {
            self.node = node
            leases = (0..<4).map(PartitionLease.neverHeld)
        }

        func heartbeat(address: String) throws { if failing { throw Unreachable() } }
        func view() throws -> PartitionLeaseView {
            if failing { throw Unreachable() }
            return PartitionLeaseView(now: now, partitions: 4, leases: leases, liveNodes: [node])
        }
        func renew(_ asked: [LeaseRef]) throws -> [LeaseRef] { defer { renewed = nil }; return renewed ?? asked }
        func claim(_ asked: [LeaseRef]) throws -> [LeaseRef] {
            defer { claimed = nil }
            return claimed ?? asked.map { LeaseRef(partition: $0.partition, epoch: $0.epoch + 1) }
        }
        func release(_ asked: [LeaseRef]) throws -> [LeaseRef] { released += asked; return asked }
        func leave() throws { left = true }

        /// The table as the database would have it after the keeper's last round: every partition held at `epoch`.
        func held(at epoch: Int64) {
            leases = (0..<4).map { PartitionLease(partition: $0, owner: node, epoch: epoch, expiresAt: Timestamp(milliseconds: now.milliseconds + 6_000)) }
        }
    }

    private func keeper(partitions: Int = 4) throws -> (PartitionLeaseKeeper, Script) {
        let node = try NodeID("node-a")
        let script = Script(node: node)
        let planner = try LeasePlanner(node: node, partitions: try PartitionMap(count: partitions), maxClaimsPerRound: 4, maxReleasesPerRound: 4)
        return (PartitionLeaseKeeper(statements: script, planner: planner, address: "127.0.0.1:1", lifetime: .seconds(6), margin: .seconds(1)), script)
    }

    @Test("claimed leases are valid until the round's start + lifetime − margin, renewed ones from their renewal's start")
    func validity() throws {
        let (keeper, script) = try keeper()
        let start = ContinuousClock.now
        let first = try keeper.round(startedAt: start)
        #expect(first.gained.map(\.partition) == [0, 1, 2, 3] && first.gained.allSatisfy { $0.epoch == 1 })
        #expect(keeper.epoch(of: 2, at: start + .milliseconds(4_999)) == 1)
        #expect(keeper.epoch(of: 2, at: start + .seconds(5)) == nil)
        script.held(at: 1)
        #expect(try keeper.round(startedAt: start + .seconds(2)) == PartitionLeaseKeeper.Changes())
        #expect(keeper.epoch(of: 2, at: start + .milliseconds(6_999)) == 1)
        #expect(keeper.partitions(at: start + .seconds(7)).isEmpty)
    }

    @Test("a failed round changes nothing: what is held runs out at its validity")
    func unreachable() throws {
        let (keeper, script) = try keeper()
        let start = ContinuousClock.now
        try keeper.round(startedAt: start)
        script.failing = true
        #expect(throws: Script.Unreachable.self) { try keeper.round(startedAt: start + .seconds(2)) }
        #expect(keeper.partitions(at: start + .seconds(4)).count == 4)
        #expect(keeper.partitions(at: start + .seconds(5)).isEmpty)
    }

    @Test("a lease the database did not renew is lost; one claimed anew is lost at its old epoch and gained at the new one")
    func lostAndRegained() throws {
        let (keeper, script) = try keeper()
        let start = ContinuousClock.now
        try keeper.round(startedAt: start)
        script.held(at: 1)
        script.renewed = [LeaseRef(partition: 0, epoch: 1), LeaseRef(partition: 1, epoch: 1), LeaseRef(partition: 2, epoch: 1)]
        script.claimed = []
        let second = try keeper.round(startedAt: start + .seconds(2))
        #expect(second.lost == [LeaseRef(partition: 3, epoch: 1)] && second.gained.isEmpty)
        #expect(keeper.epoch(of: 3, at: start + .seconds(3)) == nil)
        // Partition 3 expired on the database's clock; the keeper claims it anew.
        script.leases[3] = PartitionLease(partition: 3, owner: script.node, epoch: 1, expiresAt: script.now)
        let third = try keeper.round(startedAt: start + .seconds(4))
        #expect(third.gained == [LeaseRef(partition: 3, epoch: 2)] && third.lost.isEmpty)
        #expect(keeper.epoch(of: 3, at: start + .seconds(5)) == 2)
    }

    @Test("a database whose partition count differs from the planner's is refused before anything is planned")
    func partitionCountMismatch() throws {
        let (keeper, _) = try keeper(partitions: 8)
        #expect(throws: PartitionLeaseKeeper.PartitionCountMismatch(database: 4, planner: 8)) {
            try keeper.round(startedAt: ContinuousClock.now)
        }
        #expect(keeper.partitions(at: ContinuousClock.now).isEmpty)
    }

    @Test("leaving stops acting on everything before the statements release it")
    func leaving() throws {
        let (keeper, script) = try keeper()
        let start = ContinuousClock.now
        try keeper.round(startedAt: start)
        try keeper.leave()
        #expect(script.left)
        #expect(keeper.partitions(at: start).isEmpty)
    }
}
