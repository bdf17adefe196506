import Foundation
import TandemCore
import TandemStoreSupport

/// One write: statements that run in order inside the writer's transaction, and who to tell how it ended.
struct PGWriteJob: Sendable {
    let statements: [PGStatement]
    /// Commits that build on one another (see ``CommitChain``): once one of the chain fails, the writer marks it
    /// broken and applies none of the chain's later jobs.
    let chain: CommitChain?
    /// Called exactly once, on the writer thread (or, when the writer refused the job, on the submitting
    /// thread): the statements' results once the COMMIT holding them returned, or why the job was not written.
    /// Must not block.
    let complete: @Sendable (Result<[PGResult], PGError>) -> Void
}

/// Serialises every write through one connection on one dedicated OS thread and commits them in groups — the
/// contract of SQLite's group-commit writer, on PostgreSQL (internal; used through the PostgreSQL store).
///
/// Loop: wait for jobs → take up to `commitMaxWrites` of them → send `BEGIN`, every job's statements and
/// `COMMIT` as **one pipeline** (one round trip for the whole batch, however many jobs it holds) → resume
/// every caller of the batch once the COMMIT returned. A caller is resumed with success only after the
/// COMMIT holding its write returned OK.
///
/// **A failing write fails alone, without savepoints.** When a statement fails, the server skips the rest of
/// the pipeline, COMMIT included, so nothing of the batch is written: the writer rolls back, fails that job
/// alone (and its chain's later jobs of the batch), and sends the batch again without them. The common case
/// (no failure) pays no savepoint round trips; and a batch of hundreds of jobs in savepoints would overflow
/// PostgreSQL's per-backend cache of 64 subtransaction ids, which slows every snapshot on the server. A
/// serialization failure or deadlock (``PGError/isTransient``) is nobody's fault: the batch is sent again
/// whole, at most `transientRetries` times.
///
/// **The connection.** Opened on first use and again after it failed, waiting `reconnectDelay` (doubling up to
/// `reconnectDelayLimit`) between failed attempts; while it cannot be opened, each batch fails at once with
/// libpq's reason (callers get an error, never a hang). A connection lost while a batch was in flight fails
/// that batch's callers: with "not committed" when the COMMIT was never sent, with "outcome unknown" when it
/// was (the server may have committed it) — never with success.
///
/// Not guaranteed: fairness beyond FIFO order; cancellation (a submitted write is run even if its submitter
/// was cancelled); durability beyond the server's `synchronous_commit`.
final class PGWriter: Sendable {
    struct Configuration: Sendable {
        var commitMaxWrites = 256
        var transientRetries = 3
        var reconnectDelay = Duration.milliseconds(50)
        var reconnectDelayLimit = Duration.seconds(2)
        /// How long one batch's round trip may take before the connection is declared lost.
        var roundTripDeadline = Duration.seconds(60)
    }

    struct State: Sendable, ThreadStopping {
        var queue: [PGWriteJob] = []
        var closing = false
        var stopped = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var statistics = WriterStatistics()
    }

    /// Run on the writer's connection when it is opened. Every statement the writer runs finds its rows by key,
    /// also those that join a commit's rows (sent as arrays) to the stored ones. Its statements are prepared once
    /// and their plans kept: a plan made while a table was still small (a fresh database under load grows faster
    /// than autovacuum analyzes it) would join it by hashing or scanning the whole table, and keep doing so as it
    /// grows. Index lookups in nested loops are what these statements need at any size. Blunt: a statement whose
    /// condition no index serves can get a poor plan under them — `PGWriterPlanTests` explains every statement of
    /// a commit on empty tables and refuses a scan of a whole table.
    static let plannerSettings = ["SET enable_hashjoin = off", "SET enable_mergejoin = off", "SET enable_seqscan = off"]

    let configuration: Configuration
    let lock = ConditionLock(State())
    private let connect: @Sendable () throws(PGError) -> PGConnection

    /// `connect` opens a connection (on the writer thread, when one is needed).
    init(configuration: Configuration = Configuration(), connect: @escaping @Sendable () throws(PGError) -> PGConnection) {
        var configuration = configuration
        configuration.commitMaxWrites = max(1, configuration.commitMaxWrites)
        self.configuration = configuration
        self.connect = connect
        startDedicatedThread(named: "tandem-pgwriter") { [self] in self.runLoop() }
    }

    /// Queues `statements` and suspends until the transaction holding them committed (their results) or the
    /// job failed (why).
    func submit(_ statements: [PGStatement], chain: CommitChain? = nil) async -> Result<[PGResult], PGError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<[PGResult], PGError>, Never>) in
            enqueue(PGWriteJob(statements: statements, chain: chain, complete: { continuation.resume(returning: $0) }))
        }
    }

    /// Queues `job` behind every job queued before it and returns at once; a writer that is closing refuses it
    /// on the calling thread.
    func enqueue(_ job: PGWriteJob) {
        enqueue(contentsOf: [job])
    }

    /// Queues `jobs` at once, in order: the writer takes them together (in one batch, unless there are more
    /// than `commitMaxWrites` or the writer took earlier jobs with them).
    func enqueue(contentsOf jobs: [PGWriteJob]) {
        let accepted = lock.withLock { state in
            guard !state.closing else { return false }
            state.queue.append(contentsOf: jobs)
            return true
        }
        if accepted {
            lock.signal()
        } else {
            for job in jobs { job.complete(.failure(.notApplied("the store is closed"))) }
        }
    }

    var statistics: WriterStatistics {
        lock.withLock { state in
            var snapshot = state.statistics
            snapshot.queued = state.queue.count
            return snapshot
        }
    }

    /// Stops accepting jobs, lets the thread write what is queued, closes the connection; returns once done.
    /// Idempotent.
    func close() async {
        await lock.stop()
    }

    // MARK: - The writer thread

    private func runLoop() {
        var connection: PGConnection?
        var delay = configuration.reconnectDelay
        var backlog: [PGWriteJob] = []
        while true {
            let closing = lock.withLock(waitingUntil: { !$0.queue.isEmpty || $0.closing }) { state in
                swap(&backlog, &state.queue)
                return state.closing
            }
            if backlog.isEmpty && closing { break }
            var start = 0
            while start < backlog.count {
                let end = min(backlog.count, start + configuration.commitMaxWrites)
                let batch = Array(backlog[start..<end])
                start = end
                if connection?.isUsable != true {
                    connection?.close()
                    connection = nil
                    do throws(PGError) {
                        connection = try connect()
                        delay = configuration.reconnectDelay
                    } catch {
                        fail(batch, with: error)
                        if !closing {
                            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                            delay = min(delay * 2, configuration.reconnectDelayLimit)
                        }
                        continue
                    }
                }
                if let connection { write(batch, on: connection) }
            }
            backlog.removeAll(keepingCapacity: true)
        }
        connection?.close()
        lock.markStopped()
    }

    /// Writes one batch: its jobs whose chain is not broken, in one transaction, sent again without any job
    /// that fails until the rest commits (or the batch fails as a whole).
    private func write(_ batch: [PGWriteJob], on connection: PGConnection) {
        let began = ContinuousClock.now
        var pending: [PGWriteJob] = []
        pending.reserveCapacity(batch.count)
        for job in batch {
            if job.chain?.isBroken == true {
                finish(job, .failure(Self.chainBroken), failed: true)
            } else {
                pending.append(job)
            }
        }
        var transientAttempts = 0
        var largest = pending.count
        while !pending.isEmpty {
            largest = max(largest, pending.count)
            var statements: [PGStatement] = [PGStatement("BEGIN")]
            var owners: [Int] = [-1]
            for (index, job) in pending.enumerated() {
                statements.append(contentsOf: job.statements)
                owners.append(contentsOf: repeatElement(index, count: job.statements.count))
            }
            statements.append(PGStatement("COMMIT"))
            owners.append(-1)

            let outcomes: [PGOutcome]
            do throws(PGError) {
                outcomes = try connection.pipeline(statements, deadline: configuration.roundTripDeadline)
            } catch {
                // The COMMIT was in the pipeline: the server may or may not have applied it.
                failBatch(pending, with: .connection("\(error) — the connection was lost while its COMMIT was in flight; "
                                                     + "whether it was written is unknown"), began: began, largest: largest)
                return
            }
            guard let failure = outcomes.firstIndex(where: { if case .failed = $0 { true } else { false } }),
                  case .failed(let error) = outcomes[failure] else {
                // Every statement ran, the COMMIT included.
                var results = ArraySlice<PGOutcome>(outcomes.dropFirst().dropLast())
                lock.withLock { state in
                    state.statistics.commits += 1
                    state.statistics.committedJobs += pending.count
                    state.statistics.lastFailure = nil
                    state.statistics.largestBatch = max(state.statistics.largestBatch, largest)
                    state.statistics.longestTransaction = max(state.statistics.longestTransaction, began.duration(to: .now))
                }
                for job in pending {
                    let mine = results.prefix(job.statements.count).map { outcome -> PGResult in
                        if case .done(let result) = outcome { result } else { PGResult.empty }
                    }
                    results = results.dropFirst(job.statements.count)
                    job.complete(.success(mine))
                }
                return
            }
            // Nothing of this attempt is written (the COMMIT was skipped, or was the statement that failed).
            do throws(PGError) {
                _ = try connection.pipeline([PGStatement("ROLLBACK")], deadline: configuration.roundTripDeadline)
            } catch {
                failBatch(pending, with: .connection("\(error) — the connection was lost; not written"), began: began,
                          largest: largest)
                return
            }
            if error.isTransient, transientAttempts < configuration.transientRetries {
                transientAttempts += 1
                continue
            }
            let owner = owners[failure]
            guard owner >= 0 else {
                // BEGIN or COMMIT itself failed (e.g. a deferred constraint): no one job is to blame.
                failBatch(pending, with: error, began: began, largest: largest)
                return
            }
            let culprit = pending[owner]
            culprit.chain?.markBroken()
            finish(culprit, .failure(error), failed: true)
            var rest: [PGWriteJob] = []
            rest.reserveCapacity(pending.count - 1)
            for (index, job) in pending.enumerated() where index != owner {
                if index > owner, let chain = job.chain, chain === culprit.chain {
                    finish(job, .failure(Self.chainBroken), failed: true)
                } else {
                    rest.append(job)
                }
            }
            pending = rest
        }
    }

    private static let chainBroken = PGError.notApplied("an earlier commit it builds on failed")

    /// A job that failed on its own terms (its statement refused, its chain broken).
    private func finish(_ job: PGWriteJob, _ result: Result<[PGResult], PGError>, failed: Bool) {
        if failed { lock.withLock { $0.statistics.failedJobs += 1 } }
        job.complete(result)
    }

    /// The whole batch failed (the connection, BEGIN or COMMIT): every job gets `error`, every chain breaks.
    private func failBatch(_ jobs: [PGWriteJob], with error: PGError, began: ContinuousClock.Instant, largest: Int) {
        lock.withLock { state in
            state.statistics.failedBatches += 1
            state.statistics.abortedJobs += jobs.count
            state.statistics.lastFailure = "\(error)"
            state.statistics.largestBatch = max(state.statistics.largestBatch, largest)
            state.statistics.longestTransaction = max(state.statistics.longestTransaction, began.duration(to: .now))
        }
        for job in jobs {
            job.chain?.markBroken()
            job.complete(.failure(error))
        }
    }

    /// No connection: the batch fails with why.
    private func fail(_ jobs: [PGWriteJob], with error: PGError) {
        failBatch(jobs, with: error, began: .now, largest: 0)
    }
}
