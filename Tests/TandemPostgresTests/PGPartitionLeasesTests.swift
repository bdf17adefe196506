import Testing
import TandemCore
import TandemTestSupport
@testable import TandemPostgres

/// The lease statements on a real PostgreSQL: compare-and-set claims, renewals and releases on the database's clock,
/// and the fence that fails a commit of a node that lost its lease. Expiry is set in the rows rather than waited for.
@Suite("PostgreSQL partition leases")
struct PGPartitionLeasesTests {
    private struct Nodes {
        let conninfo: String
        let admin: PGConnection
        let a: PGPartitionLeases
        let b: PGPartitionLeases
    }

    private func nodes() async throws -> Nodes {
        let conninfo = try await PostgresCluster.shared().freshDatabase("leases")
        let admin = try PGConnection(conninfo)
        try PGSchema.migrate(admin)
        return Nodes(conninfo: conninfo, admin: admin,
                     a: PGPartitionLeases(connection: try PGConnection(conninfo), node: try NodeID("node-a"), lifetimeMilliseconds: 6_000),
                     b: PGPartitionLeases(connection: try PGConnection(conninfo), node: try NodeID("node-b"), lifetimeMilliseconds: 6_000))
    }

    private func expire(_ partition: Int, on admin: PGConnection) throws {
        try admin.execute("UPDATE partition_leases SET expires_at = now() - interval '1 second' WHERE partition = $1", [String(partition)])
    }

    private func refs(_ pairs: [(Int, Int64)]) -> [LeaseRef] {
        pairs.map { LeaseRef(partition: $0.0, epoch: $0.1) }
    }

    @Test("a fresh database has 256 free leases; heartbeats make nodes live; a view always counts its own node")
    func freshView() async throws {
        let nodes = try await nodes()
        let first = try nodes.a.view()
        #expect(first.partitions == 256 && first.leases.count == 256)
        #expect(first.leases.allSatisfy { $0.owner == nil && $0.epoch == 0 })
        #expect(first.liveNodes == [nodes.a.node])
        try nodes.a.heartbeat(address: "127.0.0.1:1")
        try nodes.b.heartbeat(address: "127.0.0.1:2")
        #expect(try nodes.a.view().liveNodes == [nodes.a.node, nodes.b.node])
        // A heartbeat older than the lifetime is not live.
        try nodes.admin.execute("UPDATE cluster_nodes SET heartbeat_at = now() - interval '7 seconds' WHERE node = 'node-b'")
        #expect(try nodes.a.view().liveNodes == [nodes.a.node])
        #expect(try nodes.admin.execute("SELECT address FROM cluster_nodes WHERE node = 'node-b'").scalar == "127.0.0.1:2")
    }

    @Test("of two claims of one partition at the epoch read, one wins and bumps the epoch; a held lease cannot be claimed")
    func claims() async throws {
        let nodes = try await nodes()
        #expect(try nodes.a.claim(refs([(0, 0), (1, 0), (2, 0), (3, 0)])) == refs([(0, 1), (1, 1), (2, 1), (3, 1)]))
        #expect(try nodes.b.claim(refs([(0, 0), (1, 0), (4, 0)])) == refs([(4, 1)]))
        #expect(try nodes.b.claim(refs([(2, 1)])) == [])  // held by a and not expired
        let view = try nodes.b.view()
        #expect(view.leases[0].owner == nodes.a.node && view.leases[4].owner == nodes.b.node)
        #expect(view.leases[0].expiresAt > view.now && view.leases[5].owner == nil)
    }

    @Test("renewal extends only leases still held at that epoch and unexpired; a lost lease is missing from the answer")
    func renewals() async throws {
        let nodes = try await nodes()
        _ = try nodes.a.claim(refs([(0, 0), (1, 0)]))
        let before = try nodes.a.view().leases[0].expiresAt
        #expect(try nodes.a.renew(refs([(0, 1), (1, 1)])) == refs([(0, 1), (1, 1)]))
        #expect(try nodes.a.view().leases[0].expiresAt >= before)
        #expect(try nodes.b.renew(refs([(0, 1)])) == [])  // not b's
        // Expired, then taken by b with a new epoch: a's renewal finds nothing, a's old epoch claims nothing.
        try expire(0, on: nodes.admin)
        #expect(try nodes.a.renew(refs([(0, 1)])) == [])
        #expect(try nodes.b.claim(refs([(0, 1)])) == refs([(0, 2)]))
        #expect(try nodes.a.claim(refs([(0, 1)])) == [])
        // a's own expired lease is claimed anew (epoch + 1), never renewed.
        try expire(1, on: nodes.admin)
        #expect(try nodes.a.renew(refs([(1, 1)])) == [])
        #expect(try nodes.a.claim(refs([(1, 1)])) == refs([(1, 2)]))
    }

    @Test("a release frees the lease at once for another node; releasing another node's lease does nothing")
    func releases() async throws {
        let nodes = try await nodes()
        _ = try nodes.a.claim(refs([(7, 0), (8, 0)]))
        #expect(try nodes.b.release(refs([(7, 1)])) == [])
        #expect(try nodes.a.release(refs([(7, 1)])) == refs([(7, 1)]))
        #expect(try nodes.b.claim(refs([(7, 1)])) == refs([(7, 2)]))
        // Leaving releases everything and removes the heartbeat.
        try nodes.a.heartbeat(address: "127.0.0.1:1")
        try nodes.b.heartbeat(address: "127.0.0.1:2")
        try nodes.a.leave()
        let view = try nodes.b.view()
        #expect(view.leases[8].owner == nil && view.leases[7].owner == nodes.b.node)
        #expect(view.liveNodes == [nodes.b.node])
        #expect(try nodes.b.claim(refs([(8, 1)])) == refs([(8, 2)]))
    }

    @Test("the fence passes a commit of the holder, fails one of a node that lost the lease, and holds off a takeover until the commit ends")
    func fence() async throws {
        let nodes = try await nodes()
        let committer = try PGConnection(nodes.conninfo)
        _ = try nodes.a.claim(refs([(3, 0), (5, 0)]))
        // Held: the fenced transaction commits.
        try committer.transaction { () throws(PGError) in
            _ = try committer.execute(PGPartitionLeases.fenceSQL, nodes.a.fenceParameters([LeaseRef(partition: 3, epoch: 1)]))
        }
        try committer.transaction { () throws(PGError) in
            _ = try committer.execute(PGPartitionLeases.fenceSQL, nodes.a.fenceParameters([LeaseRef(partition: 3, epoch: 1), LeaseRef(partition: 5, epoch: 1)]))
        }
        // One of two lost (5, taken by b with epoch 2): the fence fails the whole transaction with TD001.
        try expire(5, on: nodes.admin)
        _ = try nodes.b.claim(refs([(5, 1)]))
        #expect(throws: PGError.server(sqlState: "TD001", message: "partition lease lost", detail: nil)) {
            try committer.transaction { () throws(PGError) in
                _ = try committer.execute(PGPartitionLeases.fenceSQL, nodes.a.fenceParameters([LeaseRef(partition: 3, epoch: 1), LeaseRef(partition: 5, epoch: 1)]))
            }
        }
        // While a fenced transaction is open, its lease rows keep their holder: a claim (or release) waits for the
        // commit; a renewal does not (it changes only the expiry), so a node's renewals and its commits never deadlock.
        try nodes.admin.execute("SET lock_timeout = '200ms'")
        try committer.execute("BEGIN")
        try committer.execute(PGPartitionLeases.fenceSQL, nodes.a.fenceParameters([LeaseRef(partition: 3, epoch: 1)]))
        let renewing = try PGConnection(nodes.conninfo)
        try renewing.execute("SET lock_timeout = '200ms'")
        #expect(try PGPartitionLeases(connection: renewing, node: nodes.a.node, lifetimeMilliseconds: 6_000)
            .renew(refs([(3, 1)])) == refs([(3, 1)]))
        try expire(3, on: nodes.admin)
        #expect(throws: PGError.self) {
            try nodes.admin.execute("UPDATE partition_leases SET owner = 'node-b', epoch = epoch + 1 WHERE partition = 3")
        }
        try committer.execute("COMMIT")
        #expect(try nodes.b.claim(refs([(3, 1)])) == refs([(3, 2)]))
    }
}
