import CSQLite
@testable import TandemAPI
import TandemStore

/// A minimal in-memory SQLite for checking the SQL translation: open, execute, query rows of text.
/// Test-only; one instance is used by one test on one task.
final class SQLiteTestDatabase {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private var handle: OpaquePointer?

    init() throws {
        guard sqlite3_open(":memory:", &handle) == SQLITE_OK else { throw Failure(description: "cannot open") }
    }

    deinit { sqlite3_close(handle) }

    func execute(_ sql: String, _ bindings: [ODataSQLValue] = []) throws {
        _ = try query(sql, bindings)
    }

    /// Every row of the result, each column read as text (NULL as nil).
    func query(_ sql: String, _ bindings: [ODataSQLValue]) throws -> [[String?]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw failure(sql) }
        defer { sqlite3_finalize(statement) }
        guard Int(sqlite3_bind_parameter_count(statement)) == bindings.count else {
            throw Failure(description: "\(bindings.count) bindings for \(sqlite3_bind_parameter_count(statement)) placeholders: \(sql)")
        }
        for (offset, value) in bindings.enumerated() {
            let index = Int32(offset + 1)
            let code = switch value {
            case .integer(let number): sqlite3_bind_int64(statement, index, number)
            case .text(let text): tandem_sqlite3_bind_text_transient(statement, index, text, -1)
            }
            guard code == SQLITE_OK else { throw failure(sql) }
        }
        var rows: [[String?]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw failure(sql) }
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
        }
    }

    private func failure(_ sql: String) -> Failure {
        Failure(description: "\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
    }
}
