import TandemCore
import TandemStoreSupport

/// The SQLite database as a ``TableExport``: its tables (SQLite's own excluded), rows in key order, all read in one
/// read transaction — one consistent cut of the database, whatever is written meanwhile.
package final class SQLiteTableExport: TableExport {
    private let connection: Connection

    /// Reads through `connection` (opened by the caller on a database at this build's schema); ``begin()`` before
    /// the first read, ``end()`` after the last.
    package init(connection: Connection) {
        self.connection = connection
    }

    package func begin() throws(StoreError) { try connection.run("BEGIN") }
    package func end() { _ = try? connection.run("COMMIT") }

    package func tables() throws -> [(name: String, columns: [String])] {
        var tables: [(name: String, columns: [String])] = []
        for row in try connection.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") {
            let name = try row.get(0, as: String.self)
            let columns = try connection.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(name)]).map { row throws(StoreError) in
                try row.get(0, as: String.self)
            }
            tables.append((name, columns))
        }
        return tables
    }

    package func forEachRow(of table: String, _ body: ([ExportedValue]) throws -> Void) throws {
        let keys = try connection.query("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [.text(table)])
            .map { row throws(StoreError) in try row.get(0, as: String.self) }
        let order = keys.isEmpty ? "" : " ORDER BY " + keys.map { "\"\($0)\"" }.joined(separator: ", ")
        var failure: (any Error)?
        try connection.forEach("SELECT * FROM \"\(table)\"" + order) { (row: Row) throws(StoreError) in
            guard failure == nil else { return }
            do {
                try body(row.values.map { value in
                    switch value {
                    case .null: .null
                    case .integer(let number): .integer(number)
                    case .real(let number): .real(number)
                    case .text(let text): .text(text)
                    case .blob(let bytes): .blob(bytes)
                    }
                })
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
