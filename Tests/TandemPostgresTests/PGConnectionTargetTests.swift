import Foundation
import Testing
import TandemTestSupport
@testable import TandemPostgres

@Suite("PostgreSQL connection targets (URI, password, readiness)")
struct PGConnectionTargetTests {
    @Test("libpq's parser names what is wrong with a connection string; a good one passes")
    func problems() {
        #expect(PGConnectionTarget.problem(in: "postgres://tandem@127.0.0.1:5432/tandem") == nil)
        #expect(PGConnectionTarget.problem(in: "postgresql:///tandem?host=/run/postgresql") == nil)
        #expect(PGConnectionTarget.problem(in: "postgres://h/db?nosuchoption=1")?.contains("nosuchoption") == true)
    }

    @Test("a live server is ready; nothing listening is unreachable; a URI expands and its password is overridden")
    func readinessAndURI() async throws {
        let cluster = try await PostgresCluster.shared()
        try await cluster.createDatabase("target_uri")
        let uri = "postgresql:///target_uri?host=\(cluster.directory)&user=tandem"
        #expect(PGConnectionTarget(uri).readiness() == .ready)
        let connection = try PGConnection(PGConnectionTarget(uri, password: "ignored-by-trust", applicationName: "tandem-test"))
        #expect(try connection.execute("SELECT current_database(), current_setting('application_name')").rows == [["target_uri", "tandem-test"]])
        let nowhere = NSTemporaryDirectory() + "no-pg-" + UUID().uuidString.prefix(6)
        #expect(PGConnectionTarget("postgresql:///x?host=\(nowhere)&connect_timeout=1").readiness() == .unreachable)
    }

    @Test("opening waits for a server that is not there yet only as long as asked, then fails with libpq's reason")
    func openGivesUp() async throws {
        let nowhere = NSTemporaryDirectory() + "no-pg-" + UUID().uuidString.prefix(6)
        let started = ContinuousClock.now
        do {
            _ = try await PGStore.open(PGConnectionTarget("postgresql:///x?host=\(nowhere)"), waitingUpTo: .milliseconds(600))
            Issue.record("opened a store with no server")
        } catch {
            #expect("\(error)".contains("PostgreSQL connection"))
        }
        #expect(ContinuousClock.now - started >= .milliseconds(600))
    }
}
