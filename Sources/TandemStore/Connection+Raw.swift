import CSQLite

/// Process-wide SQLite settings, applied once before the first connection opens (`sqlite3_config` is
/// refused after `sqlite3_initialize`, which the first `sqlite3_open_v2` runs). Memory statistics off:
/// SQLite would otherwise take a global mutex on every one of its allocations and frees; nothing here
/// reads `sqlite3_memory_used` or `sqlite3_status`.
private let processSettings: Void = {
    _ = tandem_sqlite3_config_memstatus(0)
}()

/// Every `sqlite3_*` call on the connection handle lives here.
extension Connection {
    /// `sqlite3_open_v2`; on failure the half-open handle is closed before throwing, so the
    /// caller never stores a handle that needs closing.
    static func openHandle(path: String, readOnly: Bool) throws(StoreError) -> OpaquePointer {
        _ = processSettings
        var db: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
                ?? SQLiteResultCode.text(for: SQLiteResultCode(rawValue: rc))
            if let db { sqlite3_close_v2(db) }
            throw .open(path: path, code: SQLiteResultCode(rawValue: rc), message: message)
        }
        return db
    }

    /// A read-write connection on a file: `configure` puts it in WAL mode.
    var isWriteAheadLogged: Bool { !options.readOnly && path != ":memory:" && !path.isEmpty }

    /// `sqlite3_close_v2` (a "zombie" close that waits for any straggling statement to be finalized).
    func closeHandle() {
        guard let db = handle else { return }
        handle = nil
        sqlite3_close_v2(db)
    }

    /// Applies the per-connection settings described on ``Connection``.
    func configure() throws(StoreError) {
        guard let db = handle else { throw .closed }
        sqlite3_extended_result_codes(db, 1)
        var ignored: Int32 = 0
        _ = tandem_sqlite3_db_config_flag(db, SQLITE_DBCONFIG_DQS_DDL, 0, &ignored)
        _ = tandem_sqlite3_db_config_flag(db, SQLITE_DBCONFIG_DQS_DML, 0, &ignored)
        _ = tandem_sqlite3_db_config_flag(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &ignored)
        let rc = sqlite3_busy_timeout(db, options.busyTimeout.clampedMilliseconds)
        guard rc == SQLITE_OK else { throw error(for: rc, sql: "busy_timeout") }
        if isWriteAheadLogged {
            let mode = try scalar("PRAGMA journal_mode = WAL", as: String.self)
            guard mode?.lowercased() == "wal" else {
                throw .open(path: path, code: .error, message: "journal_mode is \(mode ?? "unknown"), expected wal")
            }
        }
        // temp_store = MEMORY: statement journals (an UPDATE inside the writer's savepoints needs one) and
        // sort spills stay in memory instead of a create-write-unlink of an `etilqs_` file per statement.
        try executeRaw("PRAGMA synchronous = \(options.synchronous.rawValue); PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;")
    }

    /// `sqlite3_exec` without a callback (rows are discarded).
    func executeRaw(_ sql: String) throws(StoreError) {
        guard let db = handle else { throw .closed }
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(for: rc, sql: sql) }
    }

    /// `sqlite3_prepare_v3` (persistent, since most statements end up cached).
    /// Only the first statement of `sql` is compiled; trailing text is rejected.
    func prepare(_ sql: String) throws(StoreError) -> PreparedStatement {
        guard let db = handle else { throw .closed }
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let rc = sql.withCString { text in
            let rc = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            if rc == SQLITE_OK, let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespaceOrSemicolon) {
                return SQLITE_MISUSE
            }
            return rc
        }
        guard rc == SQLITE_OK, let statement else {
            if let statement { sqlite3_finalize(statement) }
            if rc == SQLITE_MISUSE {
                throw .sqlite(code: .misuse, extendedCode: .misuse,
                              message: "more than one statement; use execute(_:) for scripts", sql: sql)
            }
            if rc == SQLITE_OK {
                throw .sqlite(code: .misuse, extendedCode: .misuse, message: "empty statement", sql: sql)
            }
            throw error(for: rc, sql: sql)
        }
        return PreparedStatement(handle: statement, sql: sql)
    }

    /// Rows changed by the most recent INSERT/UPDATE/DELETE on this connection.
    public var changes: Int {
        guard let db = handle else { return 0 }
        return Int(sqlite3_changes64(db))
    }

    /// Rowid of the most recent successful INSERT on this connection (0 if none).
    public var lastInsertRowID: Int64 {
        guard let db = handle else { return 0 }
        return sqlite3_last_insert_rowid(db)
    }

    /// `true` while a transaction is open (`sqlite3_get_autocommit` is 0).
    public var isInTransaction: Bool {
        guard let db = handle else { return false }
        return sqlite3_get_autocommit(db) == 0
    }

    /// `sqlite3_wal_checkpoint_v2(TRUNCATE)`: copies the WAL into the database and truncates it.
    /// Not guaranteed to complete fully while readers hold snapshots (returns `.busy` then).
    public func checkpointTruncate() throws(StoreError) {
        guard let db = handle else { throw .closed }
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        guard rc == SQLITE_OK else { throw error(for: rc, sql: "wal_checkpoint(TRUNCATE)") }
    }

    /// `sqlite3_wal_checkpoint_v2(PASSIVE)`: copies what it can without waiting for anyone; returns the
    /// log's length and how much of it is now copied, in pages. Busy while another checkpoint runs.
    func checkpoint() throws(StoreError) -> (logFrames: Int, copiedFrames: Int) {
        guard let db = handle else { throw .closed }
        var (log, copied): (Int32, Int32) = (0, 0)
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        guard rc == SQLITE_OK else { throw error(for: rc, sql: "wal_checkpoint(PASSIVE)") }
        return (Int(max(0, log)), Int(max(0, copied)))
    }

    /// Hands every commit's log length to `checkpointer` instead of checkpointing inline (replaces
    /// `wal_autocheckpoint`). `checkpointer` must outlive the connection (the writer holds it).
    func reportCommits(to checkpointer: Checkpointer) {
        guard let db = handle else { return }
        sqlite3_wal_hook(db, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().committed(logFrames: Int(frames))
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    func error(for rc: Int32, sql: String?) -> StoreError {
        let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? SQLiteResultCode.text(for: SQLiteResultCode(rawValue: rc))
        return StoreError(resultCode: rc, message: message, sql: sql)
    }
}

extension Character {
    fileprivate var isWhitespaceOrSemicolon: Bool { isWhitespace || self == ";" }
}
