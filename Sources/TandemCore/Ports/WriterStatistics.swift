/// Counters of a store's group-commit writer (any backend), snapshotted under its lock.
///
/// Counters only grow (except ``queued``). Not guaranteed: a consistent view with anything
/// outside the writer (a snapshot may be taken between a COMMIT and the resumption of its callers —
/// but never before the COMMIT of a job whose caller was already resumed).
public struct WriterStatistics: Sendable, Hashable {
    /// Transactions committed successfully.
    public var commits = 0
    /// Batches whose BEGIN, COMMIT or transaction failed (all their jobs got the error).
    public var failedBatches = 0
    /// Jobs whose body succeeded and whose transaction committed.
    public var committedJobs = 0
    /// Jobs whose body threw (rolled back alone, to their savepoint).
    public var failedJobs = 0
    /// Jobs that were in a failed batch (including bodies that succeeded).
    public var abortedJobs = 0
    /// Most jobs (successful + failed bodies) ever run in one transaction.
    public var largestBatch = 0
    /// Jobs waiting in the queue at snapshot time.
    public var queued = 0
    /// The longest transaction, from BEGIN until COMMIT returned: how long its callers waited at most for
    /// the store (their jobs, and the commit itself).
    public var longestTransaction = Duration.zero
    /// The longest log remainder the writer copied itself between transactions (see `Checkpointer`): no
    /// transaction runs meanwhile, so every write waits for it (its copy and the syncs of a checkpoint).
    public var longestCheckpoint = Duration.zero
    /// Why the most recent write failed, while no write has committed since (nil once one has): a store that
    /// cannot write at all (read-only file, full disk) keeps this set. Set by a failed transaction, or by a
    /// transaction whose every job failed with a ``StoreError/isStorageFailure`` error; a job failing on its
    /// own terms (a constraint, a decoding error) does not set it.
    public var lastFailure: String?

    public init() {}
}
