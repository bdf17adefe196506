import Foundation
import TandemStoreSupport

/// Copies the write-ahead log back into the database file on its own thread and connection, so the
/// group-commit writer does not stop committing to do it (internal; started by ``Store/open(_:migrations:fresh:)``).
///
/// SQLite's default (`wal_autocheckpoint`) runs a checkpoint inside the COMMIT that takes the log past
/// 1,000 pages: copying ~4 MiB and two fsyncs on the writer thread while every caller of that batch waits.
/// Measured on the gateway's single-recipient accept (wrk -c64, 2 cores, same run): inline 14.4–15.1k
/// req/s, p99 11.4–11.7 ms, 83–90 µs of server CPU per request; with this thread 16.6–16.9k req/s, p99
/// 6.9–7.1 ms, 82–84 µs (a longer log copies pages written several times once).
///
/// Here the writer's WAL hook only reports the log's length, and this thread runs `PASSIVE` checkpoints
/// (which never take the writer's lock) whenever `threshold` pages await copying.
///
/// The log starts again from its beginning only at a BEGIN that finds it wholly copied, which a background
/// pass never achieves while commits keep coming (each pass copies what was committed before it started).
/// So once the log reaches `restartAt` pages the writer itself, between two transactions and after
/// answering its callers, copies the few pages the last pass missed (``writerShouldFinishLog``); its next
/// transaction then restarts the log. No pass ever waits: like SQLite's own automatic checkpoints, they
/// are all `PASSIVE` (a `RESTART` would hold the writer's lock while it waits for readers).
///
/// Not guaranteed: a bound on the log's size while a reader holds one snapshot (no pass copies past it,
/// and the log cannot restart under it — reads here are short); checkpoints after ``close()`` (the
/// writer's own final `TRUNCATE` is the last one).
final class Checkpointer: Sendable {
    struct State: Sendable, ThreadStopping {
        /// Pages in the log after the writer's latest commit.
        var logFrames = 0
        /// Pages of the current log copied by the latest pass (reset when the log restarts).
        var copiedFrames = 0
        /// After a pass that could not copy all it saw (a reader's snapshot still needs those pages) or
        /// failed: no pass before the log reaches this length, so nobody spins on a pinned log.
        var retryAt = 0
        /// Counts the log's restarts: a pass's result counts only for the log it copied from.
        var generation = 0
        var closing = false
        var stopped = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var statistics = CheckpointStatistics()
    }

    let threshold: Int
    let restartAt: Int
    let lock = ConditionLock(State())
    private let handle: ConnectionHandle

    /// Takes ownership of `connection` (a read-write connection of its own on the same file) and starts the thread.
    init(connection: ConnectionHandle, threshold: Int, restartAt: Int) {
        self.handle = connection
        self.threshold = max(1, threshold)
        self.restartAt = max(self.threshold, restartAt)
        startDedicatedThread(named: "tandem-ckpt") { [self] in self.runLoop() }
    }

    /// Called on the writer thread after every commit (SQLite's WAL hook) with the log's length in pages.
    func committed(logFrames: Int) {
        let wake = lock.withLock { state -> Bool in
            if logFrames < state.logFrames {
                (state.copiedFrames, state.retryAt) = (0, 0)  // the log started again from its beginning
                state.generation += 1
                state.statistics.logRestarts += 1
            }
            state.logFrames = logFrames
            state.statistics.largestLog = max(state.statistics.largestLog, logFrames)
            return isDue(state)
        }
        if wake { lock.signal() }
    }

    /// A pass is due once `threshold` pages await copying; close to the restart point, once a sixteenth of
    /// that does, so that each pass leaves only what was committed while it ran — except where the writer is
    /// about to copy the rest itself (a pass then would only make the writer's busy).
    private func isDue(_ state: State) -> Bool {
        guard state.logFrames >= state.retryAt, !writerFinishes(state) else { return false }
        let waiting = state.logFrames - state.copiedFrames
        if waiting >= threshold { return true }
        return state.logFrames >= restartAt - threshold && waiting >= max(1, threshold / 16)
    }

    /// Asked by the writer between transactions: the log is long enough to restart and what is left to
    /// copy is small (a pass stalls the writer for about 1 ms per 100 pages here), or the log is twice as
    /// long as that and waiting for a small remainder has not worked.
    var writerShouldFinishLog: Bool {
        lock.withLock { writerFinishes($0) }
    }

    private func writerFinishes(_ state: State) -> Bool {
        state.logFrames >= restartAt && state.logFrames >= state.retryAt
            && (state.logFrames - state.copiedFrames <= threshold / 4 || state.logFrames >= 2 * restartAt)
    }

    /// Notes the result of a pass that began in `generation` (`nil`: it failed, or was busy).
    private func record(_ result: (logFrames: Int, copiedFrames: Int)?, generation: Int, in state: inout State) {
        guard generation == state.generation else { return }  // the log restarted under the pass
        guard let result else {
            state.retryAt = state.logFrames + max(1, threshold / 16)
            return
        }
        // The pass saw the log as of its start; later commits are still to be copied.
        state.copiedFrames = result.copiedFrames
        state.retryAt = result.copiedFrames < result.logFrames ? state.logFrames + max(1, threshold / 16) : 0
    }

    /// The writer's own pass (see ``writerShouldFinishLog``) and its result; `nil` if it failed (busy:
    /// a background pass was running — the writer tries again after its next transaction).
    func writerCopied(_ result: (logFrames: Int, copiedFrames: Int)?) {
        guard let result else { return }  // busy: the writer tries again after its next transaction
        lock.withLock { state in
            state.statistics.writerPasses += 1
            record(result, generation: state.generation, in: &state)  // no restart can happen during the writer's pass
        }
    }

    var statistics: CheckpointStatistics {
        lock.withLock { $0.statistics }
    }

    /// Stops the thread after its current pass and closes its connection.
    func close() async {
        await lock.stop()
    }

    /// Stops the thread without waiting for it.
    func requestClose() {
        lock.requestStop()
    }

    private func runLoop() {
        let db = handle.connection
        while true {
            let generation = lock.withLock(waitingUntil: { $0.closing || self.isDue($0) }) { $0.closing ? nil : $0.generation }
            guard let generation else { break }
            // Fails busy while the writer copies the remainder itself (see `writerShouldFinishLog`).
            let started = ContinuousClock.now
            let result = try? db.checkpoint()
            let took = started.duration(to: .now)
            lock.withLock { state in
                if result == nil { state.statistics.failedPasses += 1 } else { state.statistics.passes += 1 }
                state.statistics.longestPass = max(state.statistics.longestPass, took)
                record(result, generation: generation, in: &state)
            }
        }
        db.close()
        lock.markStopped()
    }
}

/// Counters of the background checkpointer.
public struct CheckpointStatistics: Sendable, Hashable {
    /// Checkpoint passes that completed (whether or not they copied the whole log).
    public var passes = 0
    /// Remainders copied by the writer between transactions, so that the log could restart.
    public var writerPasses = 0
    /// Passes that did not run (busy: the writer was copying the remainder itself) or failed; the next is
    /// tried once the writer has added another threshold's worth.
    public var failedPasses = 0
    /// Times the writer started the log again from its beginning, as reported by the WAL hook.
    public var logRestarts = 0
    /// The longest the log has been, in pages.
    public var largestLog = 0
    /// The longest background pass (its copy and the syncs; it does not hold up the writer).
    public var longestPass = Duration.zero

    public init() {}
}
