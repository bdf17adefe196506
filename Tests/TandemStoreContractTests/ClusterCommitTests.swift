import Testing
import TandemCore
import TandemPostgres
import TandemTestSupport

/// What a cluster node's commits need of the store (docs/cluster.md), on PostgreSQL, where several nodes share one
/// database: keys in the partitions the node gives, a partition's in-flight deliveries loaded alone, and the fence
/// that fails a commit of a node that no longer holds its leases.
@Suite("Cluster commits on PostgreSQL")
struct ClusterCommitTests {
    static func inPartition(_ record: NewDeliveryRecord, _ partition: Int) -> NewDeliveryRecord {
        NewDeliveryRecord(recipient: record.recipient, content: record.content, delivery: record.delivery, event: record.event,
                          at: record.at, effects: record.effects, partition: partition)
    }

    static func postgres() async throws -> PostgresUnderTest {
        try #require(try await Backend.postgres.open() as? PostgresUnderTest)
    }

    @Test("a delivery given a partition gets a key in it (a report at routing names its own delivery); a partition's in-flight deliveries load alone")
    func partitionedKeys() async throws {
        let store = try await Self.postgres()
        let pushed = Self.inPartition(try Fixture.pushed(to: [Fixture.device(1)], msisdn: Fixture.msisdn(1), content: Fixture.content(1)), 7)
        let rejected = Self.inPartition(Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(2), content: try Fixture.content(2)), 9)
        let sms = Self.inPartition(Fixture.routed(.sms(SMSRoute(reason: .noAppKey, policy: PolicySet.specDefaults.defaultPolicy)),
                                                  msisdn: try Fixture.msisdn(3), content: try Fixture.content(3)), 7)
        let plain = try Fixture.pushed(to: [Fixture.device(4)], msisdn: Fixture.msisdn(4), content: Fixture.content(4))
        let keys = try await store.deliveries.commit(inserts: [pushed, rejected, sms, plain], changes: [])
        let map = try PartitionMap()
        #expect(keys.prefix(3).map { map.partition(of: $0) } == [7, 9, 7])
        #expect(Set(keys).count == 4)
        #expect(try store.admin.execute("SELECT delivery_id FROM outbox").scalar == String(keys[1].rawValue))
        #expect(try await store.deliveries.loadInFlight(partition: 7, of: map).map(\.key) == [keys[0], keys[2]])
        #expect(try await store.deliveries.loadInFlight(partition: 9, of: map).isEmpty)  // final at once
        #expect(try await store.deliveries.loadInFlight(partition: map.partition(of: keys[3]), of: map).map(\.key) == [keys[3]])
        await store.close()
    }

    @Test("a fenced commit is stored while the node holds its leases at their epochs; at a stale epoch, another node's or an expired lease it fails with PartitionLeaseLost and stores nothing")
    func fence() async throws {
        let store = try await Self.postgres()
        let a = PGPartitionLeases(connection: try PGConnection(store.conninfo), node: try NodeID("a"), lifetimeMilliseconds: 6_000)
        let b = PGPartitionLeases(connection: try PGConnection(store.conninfo), node: try NodeID("b"), lifetimeMilliseconds: 6_000)
        #expect(try a.claim([LeaseRef(partition: 7, epoch: 0)]) == [LeaseRef(partition: 7, epoch: 1)])
        #expect(try b.claim([LeaseRef(partition: 8, epoch: 0)]) == [LeaseRef(partition: 8, epoch: 1)])
        func commit(_ n: Int, partition: Int, fence: [LeaseRef]) async throws -> [DeliveryKey] {
            let record = Self.inPartition(try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n)),
                                          partition)
            return try await store.deliveries.queueCommit(requests: [], inserts: [record], changes: [], acknowledgements: [],
                                                          fence: CommitFence(node: a.node, leases: fence), chain: CommitChain()).keys()
        }
        let held = try await commit(1, partition: 7, fence: [LeaseRef(partition: 7, epoch: 1)])
        #expect(held.count == 1)
        await #expect(throws: PartitionLeaseLost.self) { try await commit(2, partition: 7, fence: [LeaseRef(partition: 7, epoch: 0)]) }
        await #expect(throws: PartitionLeaseLost.self) {
            try await commit(3, partition: 8, fence: [LeaseRef(partition: 7, epoch: 1), LeaseRef(partition: 8, epoch: 1)])
        }
        try store.admin.execute("UPDATE partition_leases SET expires_at = now() - interval '1 second' WHERE partition = 7")
        await #expect(throws: PartitionLeaseLost.self) { try await commit(4, partition: 7, fence: [LeaseRef(partition: 7, epoch: 1)]) }
        #expect(try await store.count("deliveries") == 1)
        #expect(try await store.count("messages") == 1)
        await store.close()
    }

    @Test("a single server after a cluster: the key sequence is moved past the partitioned keys, so its keys never meet them")
    func singleServerAfterCluster() async throws {
        let store = try await Self.postgres()
        let record = Self.inPartition(try Fixture.pushed(to: [Fixture.device(1)], msisdn: Fixture.msisdn(1), content: Fixture.content(1)), 255)
        let partitioned = try #require(try await store.deliveries.commit(inserts: [record], changes: []).first)
        try await store.store.advanceDeliveryKeys()
        try await store.store.advanceDeliveryKeys()  // nothing to move the second time
        let plain = try #require(try await store.deliveries.commit(
            inserts: [try Fixture.pushed(to: [Fixture.device(2)], msisdn: Fixture.msisdn(2), content: Fixture.content(2))], changes: []).first)
        #expect(plain > partitioned)
        #expect(plain.rawValue == partitioned.rawValue + 1)
        await store.close()
    }
}
