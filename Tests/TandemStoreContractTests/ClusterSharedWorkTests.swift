import Testing
import TandemCore
import TandemPostgres
import TandemTestSupport

/// The work every node of a cluster shares (docs/cluster.md), on PostgreSQL: with a partition filter set
/// (`PGStore.setWorkPartitions`), a node sees only the status reports, myMSP events and spools of the partitions
/// it holds — a report in its delivery's partition, an event in its URL's (`hashtext(url) & 255`), a spool in its
/// message's (`messages.id % 256`) — none with an empty list, all of them without a filter.
@Suite("Cluster shared work on PostgreSQL")
struct ClusterSharedWorkTests {
    static func keys(_ items: [OutboxItem]) -> [DeliveryKey] {
        items.compactMap { item in if case .statusReport(let report) = item.content { report.deliveryKey } else { nil } }
    }

    static func msgnos(_ items: [OutboxItem]) -> [Int64] {
        items.compactMap { item in if case .mymspEvent(let event) = item.content { event.msgno } else { nil } }
    }

    @Test("status reports: a node sees the reports of its partitions alone, none with no partition, all without a filter; nextDue likewise")
    func statusReports() async throws {
        let store = try await ClusterCommitTests.postgres()
        // Rejected at routing: final at once, with a report due at routing time (partition 3 at 1 s, 4 at 2 s).
        let records = try [(3, 1), (4, 2)].map { partition, n in
            ClusterCommitTests.inPartition(Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(n), content: try Fixture.content(n),
                                                          at: Fixture.t0 + .seconds(n)), partition)
        }
        let queued = try await store.deliveries.commit(inserts: records, changes: [])
        let map = try PartitionMap()
        #expect(queued.map { map.partition(of: $0) } == [3, 4])
        #expect(try await store.count("outbox") == 2)
        let outbox = PGOutbox(store: store.store)
        let later = Fixture.t0 + .seconds(10)
        func due(_ partitions: [Int]?) async throws -> [DeliveryKey] {
            store.store.setWorkPartitions(partitions)
            return Self.keys(try await outbox.dueReports(now: later, limit: 10))
        }
        func next(_ partitions: [Int]?) async throws -> Timestamp? {
            store.store.setWorkPartitions(partitions)
            return try await outbox.nextDue()
        }
        #expect(try await due(nil) == queued, "a single server: every partition")
        #expect(try await due([3]) == [queued[0]])
        #expect(try await due([4]) == [queued[1]])
        #expect(try await due([4, 3]) == queued)
        #expect(try await due([5, 200]).isEmpty)
        #expect(try await due([]).isEmpty)
        #expect(try await next(nil) == Fixture.t0 + .seconds(1))
        #expect(try await next([3]) == Fixture.t0 + .seconds(1))
        #expect(try await next([4]) == Fixture.t0 + .seconds(2))
        #expect(try await next([5]) == nil)
        #expect(try await next([]) == nil)

        // Delivered in partition 3: the node holding 3 has nothing left; the one holding 4 still has its report.
        store.store.setWorkPartitions([3])
        let mine = try await outbox.dueReports(now: later, limit: 10)
        try await outbox.markDelivered(try #require(mine.first).id, attempts: 1, at: later)
        #expect(try await due([3]).isEmpty)
        #expect(try await next([3]) == nil)
        #expect(try await due([3, 4]) == [queued[1]])
        #expect(try await next(nil) == Fixture.t0 + .seconds(2))
        await store.close()
    }

    @Test("myMSP events: a node holding hashtext(url) & 255 of one URL sees that URL's events alone, one at a time in id order")
    func mymspEvents() async throws {
        let store = try await ClusterCommitTests.postgres()
        let (a, b) = ("http://a.example/events", "http://b.example/events")
        func partition(_ url: String) throws -> Int {
            let text = try store.admin.execute("SELECT hashtext($1) & 255", [url]).scalar
            return try #require(text.flatMap { Int($0) })
        }
        let (pa, pb) = (try partition(a), try partition(b))
        try #require(pa != pb, "the two URLs must fall in different partitions")
        // As the mymsp_event_push trigger queues them (PGSchema): kind mymspEvent, no delivery, due at creation.
        for (msgno, url) in [(1, a), (2, b), (3, a), (4, a), (5, b)] {
            let payload = #"{"msgNo":\#(msgno),"createdAt":5,"creatorName":"u","initialId":"ACTION_SUB","originatorText":2000001,"destination":"","subject":"sub"}"#
            try store.admin.execute("""
                INSERT INTO outbox (url, format, kind, payload, next_attempt_at, created_at) VALUES ($1, 'json', 'mymspEvent', $2, 5, 5)
                """, [url, payload])
        }
        let outbox = PGOutbox(store: store.store)
        func due(_ partitions: [Int]?) async throws -> [OutboxItem] {
            store.store.setWorkPartitions(partitions)
            return try await outbox.dueReports(now: Fixture.t0, limit: 10)
        }
        #expect(Self.msgnos(try await due(nil)) == [1, 2], "every URL's first event")
        #expect(Self.msgnos(try await due([pb])) == [2])
        #expect(try await due([]).isEmpty)
        store.store.setWorkPartitions([pb])
        #expect(try await outbox.nextDue() == Timestamp(milliseconds: 5))
        // The node holding a's partition delivers a's events one at a time, in id order; b's are never among them.
        var delivered: [Int64] = []
        for _ in 0..<4 {
            let items = try await due([pa])
            #expect(items.allSatisfy { $0.url == a })
            guard let item = items.first else { break }
            #expect(items.count == 1, "one event of a URL at a time")
            delivered += Self.msgnos([item])
            try await outbox.markDelivered(item.id, attempts: 1, at: Fixture.t0)
        }
        #expect(delivered == [1, 3, 4])
        store.store.setWorkPartitions([pa])
        #expect(try await outbox.nextDue() == nil)
        #expect(Self.msgnos(try await due([pb])) == [2], "b's events wait for b's owner")
        await store.close()
    }

    @Test("spools: the drainer's walk sees only the spools whose messages.id % 256 is held, wrapping among them; a chunk asked for by message is not filtered")
    func spools() async throws {
        let directory = try await Directory.open(.postgres)
        let store = try #require(directory.store as? PostgresUnderTest)
        let pg = store.store
        try await directory.send(1, msisdn: Fixture.msisdn(1), spool: [try Fixture.msisdn(10), try Fixture.msisdn(11)])
        try await directory.send(2, account: directory.globex, msisdn: Fixture.msisdn(2), spool: [try Fixture.msisdn(20)])
        try await directory.send(3, msisdn: Fixture.msisdn(3), spool: [try Fixture.msisdn(30), try Fixture.msisdn(31), try Fixture.msisdn(32)])
        func partition(_ n: Int) throws -> Int {
            let text = try store.admin.execute("SELECT id % 256 FROM messages WHERE message_id = $1", [try Fixture.guid(n).text]).scalar
            return try #require(text.flatMap { Int($0) })
        }
        let (p1, p2, p3) = (try partition(1), try partition(2), try partition(3))
        try #require(Set([p1, p2, p3]).count == 3, "three messages in three partitions")
        func next(_ partitions: [Int]?, after queue: Int64? = nil, limit: Int = 10) async throws -> SpoolChunk? {
            pg.setWorkPartitions(partitions)
            return try await pg.nextSpoolChunk(limit: limit, message: nil, afterQueue: queue)
        }
        func queued(_ partitions: [Int]?) async throws -> Int {
            pg.setWorkPartitions(partitions)
            return try await pg.queuedSpoolRecipients()
        }
        let acmeQueue = try #require(try await next(nil)).queue  // message 1: the oldest of the first queue
        let globexQueue = try #require(try await next(nil, after: acmeQueue)).queue
        #expect(acmeQueue < globexQueue)

        #expect(try await next([p2])?.content.messageID == (try Fixture.guid(2)))
        #expect(try await next([p2], after: acmeQueue)?.content.messageID == (try Fixture.guid(2)))
        #expect(try await next([p2], after: globexQueue)?.content.messageID == (try Fixture.guid(2)), "wraps to its own first")
        #expect(try await next([p3])?.content.messageID == (try Fixture.guid(3)))
        let first = try #require(try await next([p3], limit: 2))
        let (n30, n31, n32) = (try Fixture.msisdn(30), try Fixture.msisdn(31), try Fixture.msisdn(32))
        #expect(first.recipients == [n30, n31] && first.total == 3)
        #expect(try await next([p1, p3])?.content.messageID == (try Fixture.guid(1)))
        #expect(try await next([p1, p3], after: acmeQueue)?.content.messageID == (try Fixture.guid(1)),
                "globex's only spool is in another partition: back to the first queue")
        #expect(try await next([p1, p2, p3], after: acmeQueue)?.content.messageID == (try Fixture.guid(2)))
        let empty = try #require((0..<256).first { ![p1, p2, p3].contains($0) })
        #expect(try await next([empty]) == nil)
        #expect(try await next([empty], after: acmeQueue) == nil)
        #expect(try await next([]) == nil)

        #expect(try await queued(nil) == 6)
        #expect(try await queued([p1]) == 2)
        #expect(try await queued([p2, p3]) == 4)
        #expect(try await queued([]) == 0)

        // Progress in partition 3: its owner continues there; the others see what they saw.
        _ = try await directory.store.deliveries.commit(requests: [AcceptedRequest(spoolProgress: [first.progress])], inserts: [], changes: [])
        let rest = try #require(try await next([p3]))
        #expect(rest.first == 2 && rest.recipients == [n32])
        #expect(try await queued([p3]) == 1)
        #expect(try await next([p2])?.content.messageID == (try Fixture.guid(2)))

        // Asked for by message (a cancel, a fallback's drain): every spool, whatever the filter.
        pg.setWorkPartitions([p1])
        #expect(try await pg.nextSpoolChunk(limit: 10, message: try Fixture.guid(2), afterQueue: nil)?.content.messageID
                == (try Fixture.guid(2)))
        pg.setWorkPartitions([])
        #expect(try await pg.nextSpoolChunk(limit: 10, message: try Fixture.guid(3), afterQueue: nil)?.first == 2)
        await directory.close()
    }
}
