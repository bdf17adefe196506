/// The writer thread's loop.
extension GroupCommitWriter {
    private enum JobOutcome {
        case succeeded
        case failed
        /// The surrounding transaction is gone or unusable; the whole batch fails with the error.
        case batchAborted(StoreError)
    }

    private static let savepoint = "SAVEPOINT tandem_write"
    private static let release = "RELEASE tandem_write"
    private static let rollbackToSavepoint = "ROLLBACK TO tandem_write"
    private static let transactionEndedInBody = StoreError.transactionAborted(
        message: "the transaction ended inside a write body (it ran BEGIN/COMMIT/ROLLBACK, or SQLite rolled back after an I/O error)")

    func runLoop() {
        let db = handle.connection
        var backlog: [any WriteRequest] = []
        var backlogIndex = 0
        var batch: [any WriteRequest] = []
        batch.reserveCapacity(configuration.commitMaxWrites)
        let clock = ContinuousClock()

        while true {
            if backlogIndex == backlog.count {
                backlog.removeAll(keepingCapacity: true)
                backlogIndex = 0
                let drained = lock.withLock(waitingUntil: { !$0.queue.isEmpty || $0.closing }) { state in
                    swap(&backlog, &state.queue)
                    return backlog.isEmpty
                }
                if drained { break }
            }

            let beganAt = clock.now
            var batchError: StoreError?
            var failedBodies = 0
            var began = true
            do throws(StoreError) {
                try db.run("BEGIN IMMEDIATE")
            } catch {
                // Nothing can be written now: fail everything we hold (no body runs).
                batchError = error
                began = false
                batch.append(contentsOf: backlog[backlogIndex...])
                backlogIndex = backlog.count
            }

            batchLoop: while batchError == nil {
                while backlogIndex < backlog.count {
                    let request = backlog[backlogIndex]
                    backlogIndex += 1
                    let first = batch.isEmpty
                    batch.append(request)
                    switch first ? runFirst(request, on: db) : runInSavepoint(request, on: db) {
                    case .succeeded: break
                    case .failed: failedBodies += 1
                    case .batchAborted(let error):
                        batchError = error
                        break batchLoop
                    }
                    if batch.count >= configuration.commitMaxWrites || beganAt.duration(to: clock.now) >= configuration.commitWindow {
                        break batchLoop
                    }
                }
                // Backlog empty: take what arrived meanwhile, else commit now. (No lingering: waiting
                // for more jobs measured slower — see the benchmark notes on `StoreConfiguration`.)
                backlog.removeAll(keepingCapacity: true)
                backlogIndex = 0
                lock.withLock { state in
                    swap(&backlog, &state.queue)
                }
                if backlog.isEmpty { break }
            }

            if batchError == nil {
                do throws(StoreError) {
                    try db.run("COMMIT")
                } catch {
                    batchError = error
                }
            }
            if batchError != nil, db.isInTransaction {
                _ = try? db.run("ROLLBACK")
            }

            let failed = failedBodies
            let ran = began ? batch.count : 0
            let endedAt = clock.now
            lock.withLock { state in
                if let batchError {
                    state.statistics.failedBatches += 1
                    state.statistics.abortedJobs += batch.count
                    state.statistics.lastFailure = "\(batchError)"
                } else {
                    state.statistics.commits += 1
                    state.statistics.committedJobs += batch.count - failed
                    state.statistics.failedJobs += failed
                    if batch.count > failed {
                        state.statistics.lastFailure = nil
                    } else if let storage = batch.lazy.compactMap(\.storageFailure).first {
                        // Every job failed, and the database itself said why: nothing could be written.
                        state.statistics.lastFailure = "\(storage)"
                    }
                }
                state.statistics.largestBatch = max(state.statistics.largestBatch, ran)
                state.statistics.longestTransaction = max(state.statistics.longestTransaction, beganAt.duration(to: endedAt))
            }
            for request in batch {
                request.finish(batchError: batchError)
            }
            batch.removeAll(keepingCapacity: true)
            // Between transactions, with this batch's callers answered: let the log restart (see `Checkpointer`).
            if let checkpointer, checkpointer.writerShouldFinishLog {
                let copyStarted = clock.now
                checkpointer.writerCopied(try? db.checkpoint())
                let copied = copyStarted.duration(to: clock.now)
                lock.withLock { $0.statistics.longestCheckpoint = max($0.statistics.longestCheckpoint, copied) }
            }
        }

        shutDown(db)
    }

    /// The transaction's first job runs without a savepoint: if it throws, the transaction holds nothing else,
    /// so it is rolled back whole and a new one begun for the jobs after it. (Inside a savepoint, SQLite's
    /// in-memory sub-journal grows with every page the job touches and each statement's release walks it
    /// from the start, which made one 1,000-recipient job quadratic; most transactions hold one job.)
    private func runFirst(_ request: any WriteRequest, on db: Connection) -> JobOutcome {
        let succeeded = request.run(on: db)
        guard db.isInTransaction else {
            return .batchAborted(Self.transactionEndedInBody)
        }
        guard !succeeded else { return .succeeded }
        do throws(StoreError) {
            try db.run("ROLLBACK")
            try db.run("BEGIN IMMEDIATE")
        } catch {
            return .batchAborted(error)
        }
        return .failed
    }

    private func runInSavepoint(_ request: any WriteRequest, on db: Connection) -> JobOutcome {
        do throws(StoreError) {
            try db.run(Self.savepoint)
        } catch {
            return .batchAborted(error)
        }
        let succeeded = request.run(on: db)
        guard db.isInTransaction else {
            return .batchAborted(Self.transactionEndedInBody)
        }
        do throws(StoreError) {
            if !succeeded {
                try db.run(Self.rollbackToSavepoint)
            }
            try db.run(Self.release)
        } catch {
            return .batchAborted(error)
        }
        return succeeded ? .succeeded : .failed
    }

    /// After the queue drained on close: checkpoint, close the connection, wake `close()` callers.
    private func shutDown(_ db: Connection) {
        _ = try? db.checkpointTruncate()
        db.close()
        lock.markStopped()
    }
}
