import Foundation
import Testing
import TandemTestSupport
@testable import TandemPostgres

@Suite("PostgreSQL connection (libpq)")
struct PGConnectionTests {
    /// A fresh database of the shared cluster (started and created off the cooperative pool; the connection
    /// itself is a local socket, made at once).
    private func database() async throws -> PGConnection {
        try PGConnection(try await PostgresCluster.shared().freshDatabase("t"))
    }

    @Test("statements with text parameters and NULLs round-trip, and report the rows they changed")
    func roundTrip() async throws {
        let db = try await database()
        #expect(db.serverVersion >= 130_000)
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text, note text)")
        #expect(try db.execute("INSERT INTO t VALUES ($1, $2, $3), ($4, $5, $6)", ["1", "Ünïcode ✓ 'quoted'", nil, "2", "b", "x"])
            .changedRows == 2)
        let rows = try db.execute("SELECT id, name, note FROM t ORDER BY id")
        #expect(rows.columns == ["id", "name", "note"])
        #expect(rows.rows == [["1", "Ünïcode ✓ 'quoted'", nil], ["2", "b", "x"]])
        #expect(try db.execute("UPDATE t SET note = $1 WHERE id > $2", ["y", "0"]).changedRows == 2)
        #expect(try db.execute("SELECT count(*) FROM t WHERE note = $1", ["y"]).scalar == "2")
    }

    @Test("the server's refusals carry their SQLSTATE; a failed transaction leaves nothing behind")
    func errorsAndTransactions() async throws {
        let db = try await database()
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        try db.execute("INSERT INTO t VALUES (1)")
        do {
            try db.execute("INSERT INTO t VALUES (1)")
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(error.isConstraintViolation)
            guard case .server(let state, _, let detail) = error else { Issue.record("\(error)"); return }
            #expect(state == "23505" && detail?.contains("(id)=(1)") == true)
        }
        #expect(throws: PGError.self) {
            try db.transaction { () throws(PGError) in
                try db.execute("INSERT INTO t VALUES (2)")
                try db.execute("SELECT * FROM missing_table")
            }
        }
        #expect(try db.execute("SELECT count(*) FROM t").scalar == "1")
        let committed = try db.transaction { () throws(PGError) -> Int in
            try db.execute("INSERT INTO t VALUES (3)").changedRows
        }
        #expect(committed == 1)
        #expect(try db.execute("SELECT count(*) FROM t").scalar == "2")
    }

    @Test("an unreachable server or a closed connection is a connection error with libpq's reason")
    func connectionErrors() async throws {
        let cluster = try await PostgresCluster.shared()
        #expect(throws: PGError.self) { try PGConnection("host=\(cluster.directory) port=1 user=tandem dbname=postgres") }
        do {
            _ = try PGConnection("host=\(cluster.directory) port=5432 user=tandem dbname=no_such_database")
            Issue.record("connected to a database that does not exist")
        } catch {
            guard case .connection(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("no_such_database"))
        }
        let db = try await database()
        db.close()
        #expect(throws: PGError.connection("the connection is closed")) { try db.execute("SELECT 1") }
    }
}
