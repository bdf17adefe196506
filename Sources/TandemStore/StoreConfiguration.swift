/// Everything ``Store/open(_:migrations:)`` needs. Defaults suit Tandem's server.
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

    public init(
        path: String,
        readers: Int = 4,
        busyTimeout: Duration = .seconds(5),
        commitWindow: Duration = .milliseconds(2),
        commitMaxWrites: Int = 512,
        synchronous: SynchronousMode = .normal,
        statementCacheCapacity: Int = 64
    ) {
        self.path = path
        self.readers = readers
        self.busyTimeout = busyTimeout
        self.commitWindow = commitWindow
        self.commitMaxWrites = commitMaxWrites
        self.synchronous = synchronous
        self.statementCacheCapacity = statementCacheCapacity
    }

    var connectionOptions: ConnectionOptions {
        ConnectionOptions(readOnly: false, busyTimeout: busyTimeout, synchronous: synchronous,
                          statementCacheCapacity: statementCacheCapacity)
    }
}
