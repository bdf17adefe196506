import Foundation
import Testing
import TandemTestSupport
import TandemCore
@testable import TandemPostgres

@Suite("PostgreSQL store lifecycle: heartbeat and backend name")
struct PGStoreLifecycleTests {
    @Test("the heartbeat remembers the last answer: reachable after one, not after a failed beat, a stale one or stop()")
    func heartbeatRecords() {
        let heartbeat = PGHeartbeat(interval: .seconds(1), staleness: .seconds(60))
        #expect(!heartbeat.isReachable, "no answer yet")
        heartbeat.record(answered: true)
        #expect(heartbeat.isReachable)
        heartbeat.record(answered: false)
        #expect(!heartbeat.isReachable)
        heartbeat.record(answered: true)
        heartbeat.stop()
        #expect(!heartbeat.isReachable)
        heartbeat.record(answered: true)
        #expect(!heartbeat.isReachable, "a beat that answers after stop() is not recorded")
        let stale = PGHeartbeat(interval: .seconds(1), staleness: .zero)
        stale.record(answered: true)
        #expect(!stale.isReachable, "an answer older than the staleness does not count")
    }

    @Test("a started heartbeat beats at once and records what the beat answered; a stopped one does not start")
    func heartbeatBeats() async {
        let heartbeat = PGHeartbeat(interval: .seconds(3_600), staleness: .seconds(60))
        let (beats, continuation) = AsyncStream<Void>.makeStream()
        heartbeat.start {
            continuation.yield()
            return true
        }
        for await _ in beats { break }
        #expect(await eventually { heartbeat.isReachable })
        heartbeat.stop()
        #expect(!heartbeat.isReachable)
        heartbeat.start { true }
        #expect(!heartbeat.isReachable, "refused after stop()")
    }

    @Test("an open store is reachable at once, through its heartbeat's SELECT 1; a closed one is not")
    func storeReachable() async throws {
        let store = try await PGStore.open(try await PostgresCluster.shared().freshDatabase("h"))
        #expect(store.isReachable())
        #expect(try await store.schemaVersion() == PGSchema.newestVersion)
        #expect(store.backend.kind == "postgresql")
        await store.close()
        #expect(!store.isReachable())
    }

    @Test("the backend's location leaves the password out of a URI or a key/value connection string")
    func withoutPassword() {
        #expect(PGStore.withoutPassword("postgres://tandem:s3cret@db.example:5432/tandem")
                == "postgres://tandem@db.example:5432/tandem")
        #expect(PGStore.withoutPassword("postgresql://tandem@db/tandem?password=s3cret&sslmode=require")
                == "postgresql://tandem@db/tandem?sslmode=require")
        #expect(PGStore.withoutPassword("host=/tmp port=5432 user=tandem password=s3cret dbname=t")
                == "host=/tmp port=5432 user=tandem dbname=t")
    }
}
