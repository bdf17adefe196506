/// Every failure the store reports. A closed set: store APIs use typed throws `throws(StoreError)`.
///
/// Constraint violations get their own case so callers can map them to protocol errors
/// (e.g. a duplicate `device_id` → "already registered"); use ``isUniqueViolation`` for the common check.
/// Not guaranteed: the `message` texts are SQLite's and may change between SQLite versions;
/// match on cases and codes, never on messages.
public enum StoreError: Error, Sendable, Hashable {
    /// The database file could not be opened or configured (path, permissions, not a database, ...).
    case open(path: String, code: SQLiteResultCode, message: String)
    /// Any SQLite failure that is not a constraint violation or a busy/locked condition.
    case sqlite(code: SQLiteResultCode, extendedCode: SQLiteResultCode, message: String, sql: String?)
    /// A constraint failed: UNIQUE, PRIMARY KEY, FOREIGN KEY, NOT NULL, CHECK, STRICT datatype, or a
    /// trigger's `RAISE(ABORT, ...)`. `extendedCode` says which (e.g. ``SQLiteResultCode/constraintUnique``).
    case constraint(extendedCode: SQLiteResultCode, message: String, sql: String?)
    /// The database stayed locked by another connection for longer than the busy timeout.
    case busy(message: String, sql: String?)
    /// The connection or store is closed; nothing was executed.
    case closed
    /// A migration failed (its transaction was rolled back), the migration list is malformed, or
    /// the database's schema version is newer than this code knows.
    case migration(version: Int, message: String)
    /// A column could not be read as the requested Swift type (type mismatch, NULL, unknown name).
    case decoding(column: String, message: String)
    /// A Swift value could not be encoded for a column (e.g. a JSON snapshot); nothing was written.
    case encoding(column: String, message: String)
    /// A write body left the transaction it was run in (it issued COMMIT/ROLLBACK/BEGIN itself) or
    /// SQLite rolled the whole transaction back (e.g. disk full); every job of that batch fails.
    case transactionAborted(message: String)

    /// True for UNIQUE and PRIMARY KEY violations (the "already exists" family).
    public var isUniqueViolation: Bool {
        guard case .constraint(let code, _, _) = self else { return false }
        return code == .constraintUnique || code == .constraintPrimaryKey
    }

    /// True for failures of the database file itself rather than of one write: read-only, full, I/O error,
    /// corrupt, cannot open, not a database, permission denied.
    public var isStorageFailure: Bool {
        switch self {
        case .open: true
        case .sqlite(let code, _, _, _):
            [.readOnly, .ioError, .corrupt, .full, .cantOpen, .notADatabase, .permission].contains(code)
        case .transactionAborted: true
        case .constraint, .busy, .closed, .migration, .decoding, .encoding: false
        }
    }

    /// True for FOREIGN KEY violations (the "refers to something that does not exist" family).
    public var isForeignKeyViolation: Bool {
        guard case .constraint(let code, _, _) = self else { return false }
        return code == .constraintForeignKey
    }
}

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .open(let path, let code, let message):
            return "cannot open database at \(path): \(message) [\(code)]"
        case .sqlite(_, let extendedCode, let message, let sql):
            return "SQLite error \(extendedCode): \(message)" + Self.suffix(sql)
        case .constraint(let extendedCode, let message, let sql):
            return "constraint violation \(extendedCode.rawValue): \(message)" + Self.suffix(sql)
        case .busy(let message, let sql):
            return "database busy: \(message)" + Self.suffix(sql)
        case .closed:
            return "the store is closed"
        case .migration(let version, let message):
            return "migration \(version): \(message)"
        case .decoding(let column, let message):
            return "cannot decode column \(column): \(message)"
        case .encoding(let column, let message):
            return "cannot encode column \(column): \(message)"
        case .transactionAborted(let message):
            return "transaction aborted: \(message)"
        }
    }

    private static func suffix(_ sql: String?) -> String {
        guard let sql else { return "" }
        return " (in: \(sql.prefix(200)))"
    }
}

extension StoreError {
    /// Classifies a failing SQLite result code (primary or extended) into the matching case.
    init(resultCode: Int32, message: String, sql: String?) {
        let code = SQLiteResultCode(rawValue: resultCode)
        switch code.primaryResultCode {
        case .constraint:
            self = .constraint(extendedCode: code, message: message, sql: sql)
        case .busy, .locked:
            self = .busy(message: message, sql: sql)
        default:
            self = .sqlite(code: code.primaryResultCode, extendedCode: code, message: message, sql: sql)
        }
    }
}
