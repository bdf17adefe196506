import CLibPQ
import Foundation
import Glibc

/// One connection to PostgreSQL through libpq: statements with text parameters, results as text, and
/// transactions. Blocking calls — the owner runs it on a thread of its own (never on the cooperative pool).
///
/// Not thread-safe: one thread uses a connection at a time (libpq's own rule). Lifetime: ``close()`` is
/// explicit and idempotent; `deinit` closes too.
public final class PGConnection {
    var handle: OpaquePointer?
    /// Statements prepared on this connection (``pipeline(_:deadline:)``): SQL text → statement name.
    var prepared: [String: String] = [:]
    /// Names handed out so far (a name is never reused, even after its statement failed to prepare).
    var preparedNames = 0

    /// Connects with a libpq connection string (`host=… port=… user=… dbname=…`) or URI
    /// (`postgres://user@host:port/db`).
    public convenience init(_ conninfo: String) throws(PGError) {
        try self.init(PGConnectionTarget(conninfo))
    }

    /// Connects to `target` (its password and application name override the connection string's).
    public init(_ target: PGConnectionTarget) throws(PGError) {
        let connection = target.withParameters { keywords, values in PQconnectdbParams(keywords, values, 1) }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.trimmed(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            throw .connection(message)
        }
        // Pipelines are sent and read without blocking on a full socket buffer (``pipeline(_:deadline:)``);
        // libpq's synchronous calls (`PQexecParams`) ignore this and still block, as ``execute(_:_:)`` expects.
        PQsetnonblocking(connection, 1)
        // The server's notices (`relation … already exists, skipping` from the schema's IF NOT EXISTS) would go
        // to stderr by default, between the server's JSON log lines: they are dropped.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit { close() }

    /// Closes the connection. Idempotent.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared = [:]
    }

    /// False once the connection is closed or libpq has seen it fail: the owner opens a new one.
    public var isUsable: Bool {
        handle.map { PQstatus($0) == CONNECTION_OK } ?? false
    }

    /// The server's version number (e.g. 150018 for 15.18).
    public var serverVersion: Int {
        handle.map { Int(PQserverVersion($0)) } ?? 0
    }

    /// At most this many statements are kept prepared per connection; a statement seen after that (a store
    /// builds a few hundred texts at most, but an inbox filter is spelled per request) runs unprepared.
    static let preparedLimit = 512

    /// The name `sql` is prepared under on this connection, and whether it still has to be prepared (the caller
    /// prepares it, and calls ``forgetPrepared(_:)`` when that failed); nil: run it unprepared (the cache is full,
    /// or it is not a query or a data-modifying statement — `BEGIN`, DDL — whose plan is worth keeping).
    func preparedName(for sql: String) -> (name: String, isNew: Bool)? {
        if let known = prepared[sql] { return (known, false) }
        guard prepared.count < Self.preparedLimit, Self.isPlannable(sql) else { return nil }
        preparedNames += 1
        let name = "tandem_\(preparedNames)"
        prepared[sql] = name
        return (name, true)
    }

    func forgetPrepared(_ sql: String) { prepared[sql] = nil }

    private static func isPlannable(_ sql: String) -> Bool {
        let head = sql.utf8.drop { $0 == 32 || $0 == 10 || $0 == 9 }.prefix(6)
        let word = String(decoding: head, as: UTF8.self).uppercased()
        return ["SELECT", "WITH", "INSERT", "UPDATE", "DELETE"].contains { word.hasPrefix($0) }
    }

    /// Runs one statement with `$1…` parameters in text form (nil: NULL) and returns its rows as text.
    ///
    /// A query or data-modifying statement is prepared on this connection the first time its SQL is seen and
    /// reused afterwards (parsed and planned once per connection, as in ``pipeline(_:deadline:)``, whose
    /// prepared statements it shares).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(PGError) -> PGResult {
        guard let handle else { throw .connection("the connection is closed") }
        var result: OpaquePointer?
        if let (name, isNew) = preparedName(for: sql) {
            if isNew {
                guard let preparation = PQprepare(handle, name, sql, Int32(parameters.count), nil) else {
                    forgetPrepared(sql)
                    throw .client(Self.trimmed(PQerrorMessage(handle)))
                }
                defer { PQclear(preparation) }
                switch PQresultStatus(preparation) {
                case PGRES_COMMAND_OK: break
                case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR:
                    forgetPrepared(sql)
                    throw Self.failure(preparation, on: handle)
                default:
                    forgetPrepared(sql)
                    throw .client("unexpected result status \(String(cString: PQresStatus(PQresultStatus(preparation))))")
                }
            }
            result = Self.withCStrings(parameters) { values in
                PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
            }
        } else {
            result = Self.withCStrings(parameters) { values in
                PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
            }
        }
        guard let result else { throw .client(Self.trimmed(PQerrorMessage(handle))) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return PGResult(result)
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR:
            throw Self.failure(result, on: handle)
        default:
            throw .client("unexpected result status \(String(cString: PQresStatus(PQresultStatus(result))))")
        }
    }

    /// Runs `sql` — several statements separated by `;`, no parameters — as one simple query (libpq's
    /// `PQexec`): for schema scripts. Outside a transaction the statements run as one implicit transaction.
    public func executeScript(_ sql: String) throws(PGError) {
        guard let handle else { throw .connection("the connection is closed") }
        guard let result = PQexec(handle, sql) else { throw .client(Self.trimmed(PQerrorMessage(handle))) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR: throw Self.failure(result, on: handle)
        default: throw .client("unexpected result status \(String(cString: PQresStatus(PQresultStatus(result))))")
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: () throws(PGError) -> T) throws(PGError) -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// The error a failed result stands for: the server's refusal, or the connection's loss.
    static func failure(_ result: OpaquePointer, on handle: OpaquePointer) -> PGError {
        if PQstatus(handle) != CONNECTION_OK { return .connection(trimmed(PQerrorMessage(handle))) }
        return .server(sqlState: field(result, tandem_pg_diag_sqlstate()) ?? "XX000",
                       message: field(result, tandem_pg_diag_message_primary()) ?? trimmed(PQresultErrorMessage(result)),
                       detail: field(result, tandem_pg_diag_message_detail()))
    }

    static func field(_ result: OpaquePointer, _ code: Int32) -> String? {
        PQresultErrorField(result, code).map { String(cString: $0) }
    }

    /// libpq's message on one line: its lines (a reason, then a hint indented by a tab) joined by spaces, so that
    /// a log line or a command's error stays one line.
    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// `parameters` as C strings (NULL for nil) for the length of `body`.
    static func withCStrings<R>(_ parameters: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}

/// A statement's rows, as text (nil: NULL), and the number of rows it changed.
public struct PGResult: Sendable, Hashable {
    public let columns: [String]
    public let rows: [[String?]]
    /// `INSERT`/`UPDATE`/`DELETE`: the rows it changed; 0 otherwise.
    public let changedRows: Int

    init(_ result: OpaquePointer) {
        let columnCount = Int(PQnfields(result))
        columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        rows = (0..<Int(PQntuples(result))).map { row in
            (0..<columnCount).map { column in
                PQgetisnull(result, Int32(row), Int32(column)) == 1 ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
            }
        }
        changedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    private init(columns: [String], rows: [[String?]], changedRows: Int) {
        self.columns = columns
        self.rows = rows
        self.changedRows = changedRows
    }

    /// No columns, no rows.
    static let empty = PGResult(columns: [], rows: [], changedRows: 0)

    /// The first column of the first row.
    public var scalar: String? { rows.first?.first ?? nil }
}
