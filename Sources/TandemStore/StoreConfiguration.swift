/// Everything ``Store/open(_:migrations:fresh:)`` needs. Defaults suit Tandem's server.
public struct StoreConfiguration: Sendable, Hashable {
    /// Database file path; missing parent directories are created.
    public var path: String
    /// Read-only connections in the reader pool (at least 1 is used).
    public var readers: Int
    /// How long a statement waits on a lock held by another connection (e.g. another process,
    /// or a checkpoint) before failing with ``StoreError/busy(message:sql:)``.
    public var busyTimeout: Duration
    /// Longest time a write transaction stays open collecting jobs (measured from BEGIN).
    /// Not guaranteed: a single slow job can hold the transaction longer — the window is only
    /// checked between jobs.
    public var commitWindow: Duration
    /// Most jobs in one transaction; 1 disables batching (every job its own transaction).
    ///
    /// There is deliberately no "linger" (waiting briefly for more jobs once the queue is empty):
    /// measured with 64 waiting writers on 2 cores, lingering 20 µs / 100 µs cut throughput from
    /// ~400k to ~255k / ~190k rows/s (NORMAL) — batches already fill while the previous COMMIT runs.
    public var commitMaxWrites: Int
    /// `PRAGMA synchronous`: ``SynchronousMode/normal`` survives process death (Tandem's rule);
    /// ``SynchronousMode/full`` also survives power loss.
    public var synchronous: SynchronousMode
    /// Prepared statements kept per connection.
    public var statementCacheCapacity: Int
    /// Copy the write-ahead log back into the database on a thread of its own (see `Checkpointer`) once
    /// this many pages await copying; `nil`: inside the COMMIT that reaches 1,000 pages (SQLite's
    /// `wal_autocheckpoint`), stalling that batch's callers for the copy and its fsyncs.
    public var backgroundCheckpointPages: Int?
    /// Where the log should restart, as a multiple of ``backgroundCheckpointPages``: from there the writer
    /// copies the last pages itself between two transactions (see `Checkpointer`). A longer log costs disk
    /// and recovery time but copies less: pages written several times are copied once per restart.
    public var checkpointRestartFactor: Int
    /// Device registrations kept in memory (see `RegistrationCache`): the device API's, the intake's routing registrations,
    /// myMSP's active recipients and BWMI devices, each up to this many; 0 reads each time. Also how many BWMI devices'
    /// live notifications are held (see `BWMILiveNotifications`).
    public var registrationCacheCapacity: Int

    public init(
        path: String,
        readers: Int = 4,
        busyTimeout: Duration = .seconds(5),
        commitWindow: Duration = .milliseconds(2),
        commitMaxWrites: Int = 512,
        synchronous: SynchronousMode = .normal,
        statementCacheCapacity: Int = 64,
        backgroundCheckpointPages: Int? = 1_000,
        checkpointRestartFactor: Int = 8,
        registrationCacheCapacity: Int = 100_000
    ) {
        self.path = path
        self.readers = readers
        self.busyTimeout = busyTimeout
        self.commitWindow = commitWindow
        self.commitMaxWrites = commitMaxWrites
        self.synchronous = synchronous
        self.statementCacheCapacity = statementCacheCapacity
        self.backgroundCheckpointPages = backgroundCheckpointPages
        self.checkpointRestartFactor = max(1, checkpointRestartFactor)
        self.registrationCacheCapacity = registrationCacheCapacity
    }

    var connectionOptions: ConnectionOptions {
        ConnectionOptions(readOnly: false, busyTimeout: busyTimeout, synchronous: synchronous,
                          statementCacheCapacity: statementCacheCapacity)
    }
}
