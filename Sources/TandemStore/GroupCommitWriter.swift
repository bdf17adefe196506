import Foundation
import TandemCore
import TandemStoreSupport

/// Serializes all writes through one connection on one dedicated OS thread and commits them in
/// groups (internal; used through ``Store/write(_:)``).
///
/// Loop: wait for work → `BEGIN IMMEDIATE` → run queued jobs, each after the first inside `SAVEPOINT` (a
/// job that throws is rolled back alone; the first one by rolling back the transaction and beginning
/// anew) → `COMMIT` as soon as the queue is empty, or `commitWindow` has
/// passed since BEGIN, or `commitMaxWrites` jobs ran — whichever comes first → record statistics →
/// resume every caller of the batch (outside the lock). A caller is resumed with success only after
/// the COMMIT containing its write returned OK; if BEGIN/COMMIT fails or the transaction is lost,
/// every job of the batch gets the error.
///
/// Not guaranteed: fairness beyond FIFO order of submission; cancellation (a submitted write is
/// run even if the submitting task is cancelled); durability beyond what `synchronous` gives.
final class GroupCommitWriter: Sendable {
    struct Configuration: Sendable {
        var commitWindow: Duration
        var commitMaxWrites: Int
    }

    struct State: Sendable, ThreadStopping {
        var queue: [any WriteRequest] = []
        var closing = false
        var stopped = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var statistics = WriterStatistics()
        /// Test hook: tasks waiting for the queue to reach a depth (see ``queueDepth(atLeast:)``).
        var depthWaiters: [(depth: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let configuration: Configuration
    let lock = ConditionLock(State())
    let handle: ConnectionHandle
    /// Copies the log back on its own thread; `nil`: SQLite's inline `wal_autocheckpoint`.
    let checkpointer: Checkpointer?

    /// Takes ownership of `connection` (no other thread may use it afterwards) and starts the thread.
    init(connection: ConnectionHandle, configuration: Configuration, checkpointer: Checkpointer? = nil) {
        self.handle = connection
        self.checkpointer = checkpointer
        if let checkpointer { connection.connection.reportCommits(to: checkpointer) }
        var configuration = configuration
        configuration.commitMaxWrites = max(1, configuration.commitMaxWrites)
        self.configuration = configuration
        startDedicatedThread(named: "tandem-writer") { [self] in self.runLoop() }
    }

    /// Queues `body` and suspends until the transaction containing it committed (or failed).
    /// `wrap` converts the store's own errors into the body's error type.
    func submit<T: Sendable, Failure: Error>(
        _ body: @escaping @Sendable (Connection) throws(Failure) -> T,
        wrap: @escaping @Sendable (StoreError) -> Failure
    ) async -> Result<T, Failure> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            enqueue(TypedWriteRequest(body: body, wrap: wrap, completion: { continuation.resume(returning: $0) }))
        }
    }

    /// Queues `request` behind every job queued before it and returns at once; a writer that is closing
    /// rejects it (``StoreError/closed``) on the calling thread.
    func enqueue(_ request: any WriteRequest) {
        var reachedDepth: [CheckedContinuation<Void, Never>] = []
        let accepted = lock.withLock { state in
            guard !state.closing else { return false }
            state.queue.append(request)
            if !state.depthWaiters.isEmpty {
                reachedDepth = Self.takeDepthWaiters(&state)
            }
            return true
        }
        if accepted {
            lock.signal()
            for waiter in reachedDepth { waiter.resume() }
        } else {
            request.reject(.closed)
        }
    }

    var statistics: WriterStatistics {
        lock.withLock { state in
            var snapshot = state.statistics
            snapshot.queued = state.queue.count
            return snapshot
        }
    }

    /// Stops accepting jobs; the thread drains the queue, commits, checkpoints and closes the connection.
    /// Returns without waiting (see ``close()``).
    func requestClose() {
        lock.requestStop()
    }

    /// ``requestClose()`` and wait until the thread finished and the connection is closed. Idempotent.
    func close() async {
        await lock.stop()
    }

    /// Test hook: suspends until at least `depth` jobs wait in the queue (not yet taken by the writer).
    func queueDepth(atLeast depth: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = lock.withLock { state in
                guard state.queue.count < depth else { return true }
                state.depthWaiters.append((depth, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    private static func takeDepthWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let depth = state.queue.count
        var reached: [CheckedContinuation<Void, Never>] = []
        state.depthWaiters.removeAll { waiter in
            guard waiter.depth <= depth else { return false }
            reached.append(waiter.continuation)
            return true
        }
        return reached
    }

    /// Test hook, to be called from inside a write body (on the writer thread): blocks until at
    /// least `count` further jobs are queued (and, if `closing`, until close was requested).
    /// Lets tests build a batch deterministically.
    func waitUntilQueued(atLeast count: Int, closing: Bool) {
        lock.withLock(waitingUntil: { $0.queue.count >= count && (!closing || $0.closing) }) { _ in }
    }
}
