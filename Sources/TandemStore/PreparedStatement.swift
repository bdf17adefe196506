/// A compiled SQLite statement owned by exactly one ``Connection`` (internal).
///
/// Lifecycle: prepared by the connection, checked out for one use (bind → step… → reset +
/// clear bindings), then either returned to the connection's cache or finalized.
/// Not thread-safe and not Sendable: it is only touched by the thread that currently owns its connection.
final class PreparedStatement {
    /// `sqlite3_stmt*`; `nil` once finalized.
    var handle: OpaquePointer?
    /// The SQL text the statement was compiled from (also its cache key).
    let sql: String
    /// True while a caller is stepping it; a re-entrant use of the same SQL gets a fresh statement.
    var inUse = false
    /// Cache recency tick (larger = used more recently).
    var lastUsed: UInt64 = 0
    private var cachedColumnNames: [String]?
    /// The bytes of the text and blob values bound for the current use, which SQLite reads in place
    /// (`SQLITE_STATIC`) until the bindings are cleared; reused by the next use, grown when too small.
    /// (Bound `SQLITE_TRANSIENT`, SQLite copied each value into a buffer of its own — a malloc and free per
    /// value, ~17 per single-recipient request: Debian's SQLite is built without lookaside memory.)
    var boundBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 1)

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit {
        finalize()
        boundBytes.deallocate()
    }

    /// Result column names, computed once per statement.
    var columnNames: [String] {
        if let cachedColumnNames { return cachedColumnNames }
        let names = readColumnNames()
        cachedColumnNames = names
        return names
    }

    /// Steps until `SQLITE_DONE`, discarding any rows.
    func runToCompletion() throws(StoreError) {
        while try step() {}
    }

    /// Steps through every row, handing each to `body` as a ``Row``.
    func forEachRow(_ body: (Row) throws(StoreError) -> Void) throws(StoreError) {
        let names = columnNames
        while try step() {
            try body(Row(columnNames: names, values: readRowValues()))
        }
    }
}
