/// One SQLite connection (`sqlite3*`) with a prepared-statement cache.
///
/// Opened `READWRITE | CREATE | NOMUTEX` (or `READONLY | NOMUTEX`), with extended result codes,
/// double-quoted string literals disabled, defensive mode on, `journal_mode=WAL` (read-write
/// connections on a file), the configured `synchronous`, `foreign_keys=ON` and a busy timeout.
///
/// Threading: NOT Sendable and not internally locked (`NOMUTEX`): a connection belongs to one
/// thread at a time. The store hands connections across threads only inside
/// ``ConnectionHandle``, whose invariant is documented there.
///
/// Lifetime: ``close()`` is explicit and idempotent; `deinit` closes too. Not guaranteed: that
/// rows or statements obtained from a closed connection still work (they throw ``StoreError/closed``).
public final class Connection {
    /// The file path as given (or `":memory:"`).
    public let path: String
    public let options: ConnectionOptions
    /// `sqlite3*`; `nil` once closed. Set only after a successful open, so a throwing `init`
    /// that fails later (deinit then runs) closes exactly once via the idempotent ``close()``.
    var handle: OpaquePointer?
    var cache: StatementCache

    /// Opens and configures a connection.
    /// - Throws: ``StoreError/open(path:code:message:)`` when the file cannot be opened or configured.
    public init(path: String, options: ConnectionOptions = ConnectionOptions()) throws(StoreError) {
        self.path = path
        self.options = options
        self.cache = StatementCache(capacity: options.statementCacheCapacity)
        self.handle = try Self.openHandle(path: path, readOnly: options.readOnly)
        // All stored properties are set: if configuration throws, deinit runs, and close() is idempotent.
        do throws(StoreError) {
            try configure()
        } catch {
            close()
            if case .open = error { throw error }
            throw .open(path: path, code: error.resultCode ?? .error, message: error.description)
        }
    }

    deinit {
        close()
    }

    /// `true` until ``close()``.
    public var isOpen: Bool { handle != nil }

    /// Finalizes cached statements and closes the handle. Idempotent.
    /// Not guaranteed: that an open transaction commits — SQLite rolls it back.
    public func close() {
        guard handle != nil else { return }
        cache.removeAll()
        closeHandle()
    }

    /// Runs one or more `;`-separated statements without bindings and without caching
    /// (migrations, pragmas). Result rows are discarded.
    public func execute(_ sql: String) throws(StoreError) {
        try executeRaw(sql)
    }

    /// Runs one statement with `bindings` (through the statement cache), stepping it to completion;
    /// returns the number of rows changed (`sqlite3_changes64`; only meaningful for INSERT/UPDATE/DELETE).
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLValue] = []) throws(StoreError) -> Int {
        try withStatement(sql, bindings) { statement throws(StoreError) in
            try statement.runToCompletion()
        }
        return changes
    }

    /// Runs a query and returns all rows. Prefer ``forEach(_:_:_:)`` for large results.
    public func query(_ sql: String, _ bindings: [SQLValue] = []) throws(StoreError) -> [Row] {
        var rows: [Row] = []
        try forEach(sql, bindings) { row in rows.append(row) }
        return rows
    }

    /// Runs a query and calls `body` for each row as it is stepped (a cursor; nothing is buffered).
    /// Re-entrant: `body` may run other statements, even the same SQL (it then gets a fresh statement).
    public func forEach(
        _ sql: String, _ bindings: [SQLValue] = [], _ body: (Row) throws(StoreError) -> Void
    ) throws(StoreError) {
        try withStatement(sql, bindings) { statement throws(StoreError) in
            try statement.forEachRow(body)
        }
    }

    /// The first row, or `nil` when the query returns none (later rows are not computed).
    public func queryFirst(_ sql: String, _ bindings: [SQLValue] = []) throws(StoreError) -> Row? {
        try withStatement(sql, bindings) { statement throws(StoreError) -> Row? in
            guard try statement.step() else { return nil }
            return Row(columnNames: statement.columnNames, values: statement.readRowValues())
        }
    }

    /// The first column of the first row as `T`, or `nil` when there is no row.
    public func scalar<T: SQLValueConvertible>(
        _ sql: String, _ bindings: [SQLValue] = [], as type: T.Type = T.self
    ) throws(StoreError) -> T? {
        guard let row = try queryFirst(sql, bindings) else { return nil }
        return try row.get(0, as: T.self)
    }

    /// Prepare counters of the statement cache.
    public var statementCacheStatistics: StatementCacheStatistics {
        StatementCacheStatistics(prepares: cache.prepares, hits: cache.hits, cached: cache.entries.count)
    }
}

/// How often a connection compiled SQL versus reused a cached statement.
public struct StatementCacheStatistics: Sendable, Hashable {
    /// `sqlite3_prepare_v3` calls through ``Connection/run(_:_:)``, `query`, `forEach`, ….
    public var prepares: Int
    /// Uses served from the cache without compiling.
    public var hits: Int
    /// Statements currently cached.
    public var cached: Int
}

extension StoreError {
    /// The SQLite code carried by the error, if any.
    var resultCode: SQLiteResultCode? {
        switch self {
        case .open(_, let code, _): return code
        case .sqlite(_, let extendedCode, _, _): return extendedCode
        case .constraint(let extendedCode, _, _): return extendedCode
        case .busy: return .busy
        case .closed, .migration, .decoding, .encoding, .transactionAborted: return nil
        }
    }
}
