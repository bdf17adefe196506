import Foundation
import Synchronization
import TandemCore
import TandemStoreSupport

/// Tandem's store on PostgreSQL: one group-commit writer connection (``PGWriter``) and a small pool of reader
/// connections (``PGReaderPool``), on a database whose schema is ``PGSchema``. The ports are served by types
/// built on it (``PGDeliveryStore``).
///
/// ``open(_:readers:)`` connects, brings the schema up to date (one transaction, under an advisory lock) and loads
/// the policy catalog. Not guaranteed: anything beyond what the server's `synchronous_commit` gives (on by
/// default: a COMMIT returns once the server's log is flushed).
public final class PGStore: Sendable {
    let writer: PGWriter
    let readers: PGReaderPool
    let policies = PolicyCatalog()
    public let target: PGConnectionTarget
    public var conninfo: String { target.conninfo }
    let heartbeat = PGHeartbeat()
    /// The partitions whose shared work this node does (``setWorkPartitions(_:)``); nil: all of them.
    private let workPartitions = Mutex<[Int]?>(nil)

    private init(target: PGConnectionTarget, readers: Int, writer configuration: PGWriter.Configuration) {
        self.target = target
        let connect: @Sendable () throws(PGError) -> PGConnection = { () throws(PGError) -> PGConnection in try PGConnection(target) }
        writer = PGWriter(configuration: configuration) { () throws(PGError) -> PGConnection in
            let connection = try PGConnection(target)
            for setting in PGWriter.plannerSettings { try connection.execute(setting) }
            return connection
        }
        self.readers = PGReaderPool(size: readers, connect: connect)
    }

    /// Opens the store on the database `conninfo` names (a libpq connection string or `postgres://` URI): fails
    /// with libpq's reason when the server cannot be reached or refuses the login, with ``PGError/notApplied(_:)``
    /// when the database's schema is newer than this build.
    public static func open(_ conninfo: String, readers: Int = 4) async throws(PGError) -> PGStore {
        try await open(PGConnectionTarget(conninfo), readers: readers, writer: PGWriter.Configuration())
    }

    /// Opens the store on `target`, first waiting up to `wait` while no server answers there or it refuses
    /// connections (one starting up): a server that answers and then refuses the login, or a target libpq
    /// cannot parse, fails at once.
    public static func open(_ target: PGConnectionTarget, readers: Int = 4, commitMaxWrites: Int = 256,
                            waitingUpTo wait: Duration = .zero) async throws(PGError) -> PGStore {
        var writer = PGWriter.Configuration()
        writer.commitMaxWrites = commitMaxWrites
        return try await open(target, readers: readers, writer: writer, waitingUpTo: wait)
    }

    static func open(_ target: PGConnectionTarget, readers: Int, writer: PGWriter.Configuration,
                     waitingUpTo wait: Duration = .zero) async throws(PGError) -> PGStore {
        if let problem = PGConnectionTarget.problem(in: target.conninfo) { throw .connection(problem) }
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        while await Self.blocking({ target.readiness() }) != .ready, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(250))
        }
        try await Self.blocking { () throws(PGError) in
            // Connecting and migrating block: on a thread of their own, never the cooperative pool.
            let connection = try PGConnection(target)
            defer { connection.close() }
            try PGSchema.migrate(connection)
        }.get()
        let store = PGStore(target: target, readers: readers, writer: writer)
        try await store.reloadPolicies()
        store.heartbeat.record(answered: true)
        store.heartbeat.start { [readers = store.readers] in
            (try? await readers.read { db throws(PGError) in try db.execute("SELECT 1") }) != nil
        }
        return store
    }

    /// Runs `body` (blocking libpq calls) on a thread of its own, never on the cooperative pool.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws(PGError) -> T) async -> Result<T, PGError> {
        await blocking { () -> Result<T, PGError> in Result { () throws(PGError) -> T in try body() } }
    }

    /// Closes the writer (after what is queued) and the readers. Idempotent.
    public func close() async {
        heartbeat.stop()
        await writer.close()
        await readers.close()
    }

    /// Limits the work every node shares to the partitions this node holds (docs/cluster.md): the status-report
    /// outbox (``PGOutbox/dueReports(now:limit:)``, ``PGOutbox/nextDue()``) and the recipient spools
    /// (``nextSpoolChunk(limit:message:afterQueue:)`` without a message, ``queuedSpoolRecipients()``) then see only
    /// rows of those partitions, so two nodes never post one report or drain one spool at once. An outbox row of
    /// kind `statusReport` is in its delivery's partition (`delivery_id % 256`); one of kind `mymspEvent` in
    /// `hashtext(url) & 255` (PostgreSQL's hash, the same on every node: a URL's events stay together, in order);
    /// a spool in its message's (`message_spools.message_id % 256`, the `messages.id`).
    ///
    /// nil (the default): every partition, a single server; the statements are then those of a single server.
    /// An empty list: none (the node holds no lease), and those reads return nothing without a query. Thread-safe;
    /// the lease keeper sets it as the node gains and loses partitions. A read already running keeps the filter it
    /// started with.
    public func setWorkPartitions(_ partitions: [Int]?) {
        let sorted = partitions.map { Array(Set($0)).sorted() }
        workPartitions.withLock { $0 = sorted }
    }

    /// The partitions ``setWorkPartitions(_:)`` set (sorted, each once); nil: every partition.
    var workPartitionFilter: [Int]? { workPartitions.withLock { $0 } }

    /// Batch counters of the writer (see ``WriterStatistics``).
    public var writerStatistics: WriterStatistics { writer.statistics }

    /// Reads the `policies` table and learns every row (a row that does not decode is an error).
    func reloadPolicies() async throws(PGError) {
        let result = try await readers.read { db throws(PGError) in try db.execute("SELECT id, body FROM policies ORDER BY id") }
        var rows: [(number: Int64, body: String)] = []
        for row in result.rows("policies") { rows.append((try row.int64(0), try row.text(1))) }
        do throws(ColumnCodingError) {
            try policies.learn(stored: rows)
        } catch {
            throw .client("policies.body: \(error.message)")
        }
    }

    /// Runs `statements` in the writer's next transaction (see ``PGWriter/submit(_:chain:)``).
    func write(_ statements: [PGStatement], chain: CommitChain? = nil) async throws(PGError) -> [PGResult] {
        try await writer.submit(statements, chain: chain).get()
    }

    /// Runs `body` on a pooled reader connection.
    func read<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws(PGError) -> T) async throws(PGError) -> T {
        try await readers.read(body)
    }
}

extension PGStatement {
    /// Fails the writer job with SQLSTATE 23503 (`message`, by default naming the app) unless an app has this key: the
    /// first statement of a job whose later statements select the app's id and would otherwise write nothing.
    static func appMustExist(_ app: AppKey, else message: String? = nil) -> PGStatement {
        PGStatement("SELECT tandem_expect((SELECT count(*) FROM apps WHERE app_key = $1), 1, '23503', $2)",
                    [app.text, message ?? "no app has key \(app)"])
    }
}

/// Text forms of parameter values (libpq's text protocol).
extension Optional where Wrapped == Int64 {
    var pgText: String? { map { String($0) } }
}

extension Bool {
    var pgText: String { self ? "t" : "f" }
}

extension Array where Element == Int {
    /// An `int[]` parameter: `{3,4}`.
    var pgIntArray: String { "{" + map(String.init).joined(separator: ",") + "}" }
}

/// Rows gathered column by column, sent as one array parameter per column (`unnest($1::text[], …)`): what every
/// multi-row statement of a commit is built from.
struct ColumnArrays: Sendable {
    private var columns: [[String?]]

    init(count: Int) {
        columns = Array(repeating: [], count: count)
    }

    var isEmpty: Bool { columns[0].isEmpty }
    /// The rows appended so far.
    var count: Int { columns[0].count }

    /// Appends one row: a value per column, in column order.
    mutating func append(_ row: [String?]) {
        precondition(row.count == columns.count, "a row has a value per column")
        for (index, value) in row.enumerated() { columns[index].append(value) }
    }

    /// One array literal per column: the statement's parameters.
    var parameters: [String?] { columns.map { PGArray.literal($0) } }
}

/// PostgreSQL array literals, for sending many rows as one parameter per column (`unnest($1::bigint[], …)`): one
/// statement text whatever the number of rows.
enum PGArray {
    /// `{"a","b",NULL}`: every element quoted, `"` and `\` escaped; nil → NULL.
    static func literal(_ values: some Sequence<String?>) -> String {
        var text: [UInt8] = [UInt8(ascii: "{")]
        var first = true
        for value in values {
            if !first { text.append(UInt8(ascii: ",")) }
            first = false
            guard var value else { text += "NULL".utf8; continue }
            text.append(UInt8(ascii: "\""))
            value.withUTF8 { bytes in
                for byte in bytes {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { text.append(UInt8(ascii: "\\")) }
                    text.append(byte)
                }
            }
            text.append(UInt8(ascii: "\""))
        }
        text.append(UInt8(ascii: "}"))
        return String(decoding: text, as: UTF8.self)
    }
}
