import Foundation
import Testing
import TandemTestSupport
import TandemCore
@testable import TandemPostgres

@Suite("PostgreSQL pipelines and group-commit writer")
struct PGWriterTests {
    /// A fresh database of the shared cluster, with its connection string.
    private func database() async throws -> (PGConnection, String) {
        let conninfo = try await PostgresCluster.shared().freshDatabase("w")
        return (try PGConnection(conninfo), conninfo)
    }

    private func writer(_ conninfo: String, _ configuration: PGWriter.Configuration = .init()) -> PGWriter {
        PGWriter(configuration: configuration) { () throws(PGError) in try PGConnection(conninfo) }
    }

    @Test("a connection keeps at most preparedLimit statements prepared; past it, statements still run, unprepared")
    func preparedLimit() async throws {
        let (db, _) = try await database()
        for index in 0..<(PGConnection.preparedLimit + 20) {
            #expect(try db.execute("SELECT \(index) + $1::int", ["1"]).scalar == String(index + 1))
        }
        #expect(db.prepared.count == PGConnection.preparedLimit)
        let past = try db.pipeline([PGStatement("SELECT 'past the limit', $1::int", ["7"])])
        #expect(past == [.done(try db.execute("SELECT 'past the limit', $1::int", ["7"]))])
        #expect(db.prepared.count == PGConnection.preparedLimit)
    }

    @Test("a pipeline runs prepared statements in one round trip; after a failure the rest is skipped; statements stay prepared")
    func pipeline() async throws {
        let (db, _) = try await database()
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text)")
        let insert = "INSERT INTO t VALUES ($1, $2) RETURNING id"
        let outcomes = try db.pipeline([PGStatement(insert, ["1", "a"]), PGStatement(insert, ["2", nil]),
                                        PGStatement(insert, ["1", "duplicate"]), PGStatement(insert, ["3", "c"])])
        #expect(outcomes.count == 4)
        guard case .done(let first) = outcomes[0], case .done(let second) = outcomes[1] else { Issue.record("\(outcomes)"); return }
        #expect(first.scalar == "1" && second.scalar == "2")
        guard case .failed(let error) = outcomes[2] else { Issue.record("\(outcomes[2])"); return }
        #expect(error.isConstraintViolation)
        #expect(outcomes[3] == .skipped)
        // Outside an explicit transaction the pipeline up to its Sync is one implicit transaction: all undone.
        #expect(try db.execute("SELECT count(*) FROM t").scalar == "0")
        // `execute` shares the connection's prepared statements: the insert, and now the count.
        #expect(db.prepared.count == 2)
        let again = try db.pipeline([PGStatement(insert, ["4", "d"]), PGStatement("SELECT count(*) FROM t")])
        #expect(again.last == .done(try db.execute("SELECT count(*) FROM t")))
        #expect(db.prepared.count == 2 && db.preparedNames == 2)
        // Transaction control and DDL run unprepared.
        try db.execute("BEGIN")
        try db.execute("CREATE TABLE u (id bigint)")
        try db.execute("ROLLBACK")
        #expect(db.prepared.count == 2)
        // A statement that cannot be prepared is not remembered as prepared.
        let broken = try db.pipeline([PGStatement("SELECT * FROM missing_table")])
        guard case .failed(.server(let state, _, _)) = broken[0] else { Issue.record("\(broken)"); return }
        #expect(state == "42P01" && db.prepared["SELECT * FROM missing_table"] == nil)
        #expect(db.isUsable)
    }

    @Test("a pipeline far larger than the socket buffers does not dead-lock with the server's results")
    func largePipeline() async throws {
        let (db, _) = try await database()
        try db.execute("CREATE TABLE big (id bigint PRIMARY KEY, body text)")
        let body = String(repeating: "x", count: 2_000)
        let statements = (1...5_000).map { PGStatement("INSERT INTO big VALUES ($1, $2) RETURNING body", [String($0), body]) }
        let outcomes = try db.pipeline([PGStatement("BEGIN")] + statements + [PGStatement("COMMIT")])
        #expect(outcomes.allSatisfy { if case .done = $0 { true } else { false } })
        #expect(try db.execute("SELECT count(*), sum(length(body)) FROM big").rows == [["5000", "10000000"]])
    }

    @Test("64 concurrent writers × 50 writes: every write committed before its writer resumes, in batches")
    func concurrentWriters() async throws {
        let (db, conninfo) = try await database()
        try db.execute("CREATE TABLE rows (writer int, n int, PRIMARY KEY (writer, n))")
        let writer = writer(conninfo)
        let check = try PGConnection(conninfo)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<64 {
                group.addTask {
                    for n in 0..<50 {
                        let result = await writer.submit([PGStatement("INSERT INTO rows VALUES ($1, $2) RETURNING n", [String(w), String(n)])])
                        #expect((try? result.get())?.first?.scalar == String(n))
                    }
                }
            }
            try await group.waitForAll()
        }
        // Each writer's last write is visible to another connection once it resumed.
        #expect(try check.execute("SELECT count(*) FROM rows").scalar == "3200")
        let statistics = writer.statistics
        #expect(statistics.committedJobs == 3_200 && statistics.failedJobs == 0 && statistics.failedBatches == 0)
        #expect(statistics.commits < 3_200, "jobs shared commits")
        await writer.close()
    }

    @Test("a failing write fails alone, its chain's later writes are not applied, the rest of the batch commits")
    func failingWriteAlone() async throws {
        let (db, conninfo) = try await database()
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        try db.execute("INSERT INTO t VALUES (100)")
        let writer = writer(conninfo)
        let results = ResultBox()
        let chain = CommitChain()
        let jobs: [(String, [PGStatement], CommitChain?)] = [
            ("b", [PGStatement("INSERT INTO t VALUES (1)")], nil),
            ("c", [PGStatement("INSERT INTO t VALUES (2)"), PGStatement("INSERT INTO t VALUES (100)")], chain),
            ("d", [PGStatement("INSERT INTO t VALUES (3)")], nil),
            ("e", [PGStatement("INSERT INTO t VALUES (4)")], chain),
            ("f", [PGStatement("INSERT INTO t VALUES (5)")], nil),
        ]
        writer.enqueue(contentsOf: jobs.map { name, statements, chain in
            PGWriteJob(statements: statements, chain: chain, complete: results.recorder(name))
        })
        let outcomes = await results.waitFor(5)
        #expect(outcomes["b"] == "ok" && outcomes["d"] == "ok" && outcomes["f"] == "ok")
        #expect(outcomes["c"]?.contains("23505") == true)
        #expect(outcomes["e"] == "\(PGError.notApplied("an earlier commit it builds on failed"))")
        #expect(chain.isBroken)
        #expect(try db.execute("SELECT string_agg(id::text, ',' ORDER BY id) FROM t").scalar == "1,3,5,100")
        let statistics = writer.statistics
        #expect(statistics.committedJobs == 3 && statistics.failedJobs == 2 && statistics.failedBatches == 0)
        #expect(statistics.largestBatch == 5 && statistics.commits == 1, "the five jobs travelled together")
        // A job queued on the broken chain later is not applied either.
        let late = await writer.submit([PGStatement("INSERT INTO t VALUES (6)")], chain: chain)
        #expect(late == .failure(.notApplied("an earlier commit it builds on failed")))
        await writer.close()
    }

    @Test("a serialization failure is retried whole, a bounded number of times, then fails alone")
    func transientRetries() async throws {
        let (db, conninfo) = try await database()
        try db.execute("CREATE SEQUENCE attempts")
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        try db.execute("""
            CREATE FUNCTION conflict() RETURNS void LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'simulated conflict' USING ERRCODE = '40001'; END $$
            """)
        let writer = writer(conninfo)
        async let other = writer.submit([PGStatement("INSERT INTO t VALUES (1)")])
        // Sequences ignore rollbacks: nextval counts the attempts.
        let failed = await writer.submit([PGStatement("SELECT nextval('attempts')"), PGStatement("SELECT conflict()")])
        guard case .failure(let error) = failed else { Issue.record("\(failed)"); return }
        #expect(error.isTransient)
        #expect(try await other.get().count == 1)
        #expect(try db.execute("SELECT last_value FROM attempts").scalar == "4", "the first attempt and three retries")
        #expect(try db.execute("SELECT count(*) FROM t").scalar == "1")
        await writer.close()
    }

    @Test("a COMMIT that fails (a deferred constraint) fails every job of its batch")
    func commitFailure() async throws {
        let (db, conninfo) = try await database()
        try db.execute("CREATE TABLE t (id bigint UNIQUE DEFERRABLE INITIALLY DEFERRED)")
        let writer = writer(conninfo)
        let results = ResultBox()
        writer.enqueue(contentsOf: ["a", "b"].map { name in
            PGWriteJob(statements: [PGStatement("INSERT INTO t VALUES (1)")], chain: nil, complete: results.recorder(name))
        })
        let outcomes = await results.waitFor(2)
        #expect(outcomes["a"]?.contains("23505") == true && outcomes["b"] == outcomes["a"])
        #expect(try db.execute("SELECT count(*) FROM t").scalar == "0")
        #expect(writer.statistics.failedBatches == 1 && writer.statistics.lastFailure?.contains("23505") == true)
        #expect(try await writer.submit([PGStatement("INSERT INTO t VALUES (2)")]).get().count == 1)
        #expect(writer.statistics.lastFailure == nil)
        await writer.close()
    }

    @Test("a connection lost during a batch fails it as of unknown outcome; the next write reconnects")
    func lostConnection() async throws {
        let (db, conninfo) = try await database()
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        let writer = writer(conninfo)
        #expect(try await writer.submit([PGStatement("INSERT INTO t VALUES (1)")]).get().count == 1)
        // The batch's own backend ends itself mid-batch, after the whole pipeline (its COMMIT included) was sent.
        let lost = await writer.submit([PGStatement("INSERT INTO t VALUES (2)"),
                                        PGStatement("SELECT pg_terminate_backend(pg_backend_pid())")])
        guard case .failure(.connection(let message)) = lost else { Issue.record("not a connection failure"); return }
        #expect(message.contains("whether it was written is unknown"))
        #expect(try db.execute("SELECT count(*) FROM t").scalar == "1")
        #expect(try await writer.submit([PGStatement("INSERT INTO t VALUES (3)")]).get().count == 1)
        #expect(try db.execute("SELECT count(*) FROM t").scalar == "2")
        await writer.close()
    }

    @Test("a server that cannot be reached fails each write at once with libpq's reason; a closed writer refuses")
    func unreachable() async throws {
        let cluster = try await PostgresCluster.shared()
        let conninfo = "host=\(cluster.directory) port=1 user=tandem dbname=postgres connect_timeout=2"
        let writer = writer(conninfo, .init(reconnectDelay: .milliseconds(10), reconnectDelayLimit: .milliseconds(20)))
        for _ in 0..<3 {
            guard case .failure(.connection(let message)) = await writer.submit([PGStatement("SELECT 1")]) else {
                Issue.record("a write succeeded without a server"); return
            }
            #expect(!message.isEmpty)
        }
        #expect(writer.statistics.lastFailure != nil && writer.statistics.failedBatches == 3)
        await writer.close()
        #expect(await writer.submit([PGStatement("SELECT 1")]) == .failure(.notApplied("the store is closed")))
    }
}

/// Outcomes of enqueued jobs by name ("ok" or the error's description), awaited together: the waiter is resumed by
/// the completion that brings the count it waits for (no polling).
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [String: String] = [:]
    private var waiter: (count: Int, continuation: CheckedContinuation<[String: String], Never>)?

    func recorder(_ name: String) -> @Sendable (Result<[PGResult], PGError>) -> Void {
        { result in
            let ready = self.lock.withLock { () -> (CheckedContinuation<[String: String], Never>, [String: String])? in
                switch result {
                case .success: self.outcomes[name] = "ok"
                case .failure(let error): self.outcomes[name] = "\(error)"
                }
                guard let waiter = self.waiter, self.outcomes.count >= waiter.count else { return nil }
                self.waiter = nil
                return (waiter.continuation, self.outcomes)
            }
            if let (continuation, outcomes) = ready { continuation.resume(returning: outcomes) }
        }
    }

    func waitFor(_ count: Int) async -> [String: String] {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> [String: String]? in
                if outcomes.count >= count { return outcomes }
                waiter = (count, continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
