import Foundation
import TandemCore
import TandemStoreSupport

/// Tandem's embedded database: one group-commit writer plus a pool of readers on a WAL file.
///
/// - ``write(_:)``: the body runs on the writer thread inside the current batch transaction
///   (in its own savepoint); the call returns only after that transaction COMMITted, so an
///   answer sent after `await store.write` refers to committed data.
/// - ``read(_:)``: synchronous, on the caller's thread, on a pooled read-only connection; sees
///   every write whose `write` call has returned.
///
/// `Sendable` invariants: all stored properties are immutable; the writer and reader pool
/// synchronize internally; connections never leave their owner (writer thread / current reader).
///
/// Not guaranteed: that write bodies can manage transactions (no BEGIN/COMMIT/ROLLBACK inside —
/// the batch fails); that `read` never blocks (it waits while every reader is lent out — keep
/// bodies short on the cooperative pool); cancellation of submitted writes; durability across
/// power loss with ``SynchronousMode/normal``.
public final class Store: Sendable {
    public let configuration: StoreConfiguration
    let writer: GroupCommitWriter
    let readers: ReaderPool
    let registrations: RegistrationCache
    /// The committed `policies` rows, for snapshots that name their policy by number.
    let policies = PolicyCatalog()
    /// BWMI apps with their settings (``bwmiApp(key:)``), which other processes write too.
    let bwmiApps: CommitWatchedCache<AppKey, BWMIApp>
    /// Each BWMI device's live notifications, as the writer left them (the badge after an acknowledgement).
    let bwmiLive: BWMILiveNotifications
    /// The schema versions ``open(_:migrations:fresh:)`` applied, as ``Connection/migrate(_:fresh:)`` returned
    /// them: empty for a database that was up to date, the squashed schema's version alone for a new one.
    public let appliedMigrations: [Int]

    private init(configuration: StoreConfiguration, writer: GroupCommitWriter, readers: ReaderPool, watch: Connection,
                 appliedMigrations: [Int]) {
        self.configuration = configuration
        self.appliedMigrations = appliedMigrations
        self.writer = writer
        self.readers = readers
        registrations = RegistrationCache(capacity: configuration.registrationCacheCapacity)
        bwmiApps = CommitWatchedCache(watch: watch, capacity: 10_000)
        bwmiLive = BWMILiveNotifications(capacity: configuration.registrationCacheCapacity)
    }

    deinit {
        // Dropped without close(): let the writer drain and finish on its own thread.
        writer.checkpointer?.requestClose()
        writer.requestClose()
        readers.close()
        bwmiApps.close()
    }

    /// Creates missing parent directories, opens the writer connection, brings the schema up to date, opens the
    /// readers and starts the writer thread.
    ///
    /// The schema: a new database gets `fresh` in one transaction (Tandem's squashed schema by default), any
    /// other database the `migrations` above its version, each in its own transaction; `fresh` is used only
    /// when `migrations` begins with the migrations it stands for (see ``Connection/migrate(_:fresh:)``), so a
    /// list cut short still builds an older database step by step.
    public static func open(
        _ configuration: StoreConfiguration,
        migrations: [Migration] = TandemSchema.migrations,
        fresh: SquashedSchema? = TandemSchema.fresh
    ) throws(StoreError) -> Store {
        try createParentDirectory(of: configuration.path)
        let writerConnection = try Connection(path: configuration.path, options: configuration.connectionOptions)
        let applied = try writerConnection.migrate(migrations, fresh: fresh)
        let readers = try ReaderPool(path: configuration.path, count: configuration.readers,
                                     options: configuration.connectionOptions)
        var checkpointer: Checkpointer?
        if let pages = configuration.backgroundCheckpointPages, writerConnection.isWriteAheadLogged {
            checkpointer = Checkpointer(
                connection: ConnectionHandle(try Connection(path: configuration.path, options: configuration.connectionOptions)),
                threshold: pages, restartAt: pages * configuration.checkpointRestartFactor)
        }
        let writer = GroupCommitWriter(
            connection: ConnectionHandle(writerConnection),
            configuration: .init(commitWindow: configuration.commitWindow,
                                 commitMaxWrites: configuration.commitMaxWrites),
            checkpointer: checkpointer)
        var readOnly = configuration.connectionOptions
        readOnly.readOnly = true
        let watch = try Connection(path: configuration.path, options: readOnly)
        return Store(configuration: configuration, writer: writer, readers: readers, watch: watch, appliedMigrations: applied)
    }

    /// Runs `body` in the writer's current transaction and returns its result once that
    /// transaction committed.
    ///
    /// Annotate the closure `{ db throws(StoreError) in … }` to pick this overload; an unannotated
    /// closure picks the `any Error` overload (in `Store+UntypedBodies.swift`), which also lets
    /// the body throw the caller's own domain errors.
    ///
    /// - Throws: the body's own error (its savepoint was rolled back; the rest of the batch is
    ///   unaffected), the batch's error if BEGIN/COMMIT failed (then nothing of it is durable), or
    ///   ``StoreError/closed`` after ``close()`` (the body did not run).
    @discardableResult
    public func write<T: Sendable>(
        _ body: @escaping @Sendable (Connection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await writer.submit(body, wrap: { $0 }).get()
    }

    /// Like ``write(_:)`` but returns at once: `completion` gets the outcome on the writer thread, once the
    /// transaction holding the write committed (or failed) and before the writer begins another; it must not
    /// block. Writes queued one after another run in that order (jobs queued later in the same transaction
    /// run before the earlier ones' completions).
    public func queueWrite<T: Sendable>(
        _ body: @escaping @Sendable (Connection) throws(StoreError) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        writer.enqueue(TypedWriteRequest(body: body, wrap: { $0 }, completion: completion))
    }

    /// Runs `body` on a pooled read-only connection, on the calling thread (blocks while all are busy).
    /// Each statement sees the latest commit; use ``readSnapshot(_:)`` for several consistent statements.
    public func read<T>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        try readers.read(body, closed: { .closed })
    }

    /// Like ``read(_:)`` but inside `BEGIN DEFERRED … COMMIT`: all statements see one snapshot.
    public func readSnapshot<T>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        try readers.read({ db throws(StoreError) -> T in
            try db.run("BEGIN DEFERRED")
            let result = try body(db)
            try db.run("COMMIT")
            return result
        }, closed: { .closed })
    }

    /// `SELECT 1` through a reader (cached statement). `false` on any error, including after close.
    /// Not guaranteed: promptness while every reader is lent out (it waits for one).
    public func ping() -> Bool {
        let one = try? read { db throws(StoreError) in
            try db.scalar("SELECT 1", as: Int64.self)
        }
        return one == 1
    }

    /// The database's current `PRAGMA user_version`, read through a reader.
    public func schemaVersion() throws(StoreError) -> Int {
        try read { db throws(StoreError) in try db.schemaVersion }
    }

    /// Batch counters of the writer (see ``WriterStatistics``).
    public var writerStatistics: WriterStatistics {
        writer.statistics
    }

    /// Counters of the background checkpointer (all zero when checkpoints run inline).
    public var checkpointStatistics: CheckpointStatistics {
        writer.checkpointer?.statistics ?? CheckpointStatistics()
    }

    /// Stops accepting writes (later ones fail with ``StoreError/closed``), lets queued writes run
    /// and commit, checkpoints the WAL (`TRUNCATE`), and closes every connection. Idempotent.
    /// Not guaranteed: a complete checkpoint while a reader is still lent out (the WAL is then
    /// replayed at the next open; nothing is lost).
    public func close() async {
        readers.close()
        bwmiApps.close()
        await writer.checkpointer?.close()
        await writer.close()
    }

    /// Test hook (call inside a write body): block the writer until `count` more jobs are queued
    /// (and, if `closing`, until ``close()`` was called).
    func waitUntilQueued(atLeast count: Int, closing: Bool = false) {
        writer.waitUntilQueued(atLeast: count, closing: closing)
    }

    /// Test hook: suspends until at least `depth` writes wait in the writer's queue.
    func waitForQueue(atLeast depth: Int) async {
        await writer.queueDepth(atLeast: depth)
    }

    private static func createParentDirectory(of path: String) throws(StoreError) {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) else { return }
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw .open(path: path, code: .cantOpen, message: "cannot create directory \(parent): \(error)")
        }
    }
}
