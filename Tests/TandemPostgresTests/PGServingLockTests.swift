import Foundation
import Testing
import TandemTestSupport
@testable import TandemPostgres

@Suite("PostgreSQL serving lock (one tandem serve per database)")
struct PGServingLockTests {
    @Test("a second server is refused, naming the holder; once released (or its session ends) the next one takes it")
    func exclusive() async throws {
        let cluster = try await PostgresCluster.shared()
        try await cluster.createDatabase("serving_lock")
        let target = PGConnectionTarget(cluster.conninfo("serving_lock"), applicationName: "tandem serve (first)")
        let first = try await PGServingLock.take(target)
        #expect(await first.isHeld())
        do {
            _ = try await PGServingLock.take(PGConnectionTarget(cluster.conninfo("serving_lock")))
            Issue.record("a second server took the lock")
        } catch {
            #expect("\(error)".contains("another tandem serve is using this database (tandem serve (first) at local socket"))
        }
        // Another database of the same cluster is another lock.
        try await cluster.createDatabase("serving_lock_other")
        let other = try await PGServingLock.take(PGConnectionTarget(cluster.conninfo("serving_lock_other")))
        first.release()
        #expect(await first.isHeld() == false)
        let second = try await PGServingLock.take(target)
        #expect(await second.isHeld())
        second.release()
        other.release()
    }
}
