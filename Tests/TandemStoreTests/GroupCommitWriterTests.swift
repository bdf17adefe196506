import Synchronization
import Testing
@testable import TandemStore

@Suite("Group-commit writer")
struct GroupCommitWriterTests {
    @Test("64 concurrent writers × 1,000 rows commit exactly 64,000 rows, each committed before its writer resumes")
    func concurrentWritersResumeAfterCommit() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/w.sqlite"), migrations: testMigrations)
            let violations = try await withThrowingTaskGroup(of: Int.self, returning: Int.self) { group in
                for writer in 0..<64 {
                    group.addTask {
                        var violations = 0
                        for seq in 0..<1_000 {
                            let (id, commitsWhenRun) = try await store.write { db throws(StoreError) in
                                (try insertRow(db, writer: writer, seq: seq), store.writerStatistics.commits)
                            }
                            // Resumed only after a COMMIT that happened after the body ran …
                            if store.writerStatistics.commits <= commitsWhenRun { violations += 1 }
                            // … and that COMMIT made the row visible to a separate read-only connection.
                            let visible = try store.read { db throws(StoreError) in
                                try db.scalar("SELECT count(*) FROM rows WHERE id = ? AND writer = ? AND seq = ?",
                                              [.integer(id), .integer(Int64(writer)), .integer(Int64(seq))], as: Int.self)
                            }
                            if visible != 1 { violations += 1 }
                        }
                        return violations
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(violations == 0)
            #expect(try rowCount(store) == 64_000)
            let stats = store.writerStatistics
            #expect(stats.committedJobs == 64_000)
            #expect(stats.failedJobs == 0 && stats.failedBatches == 0)
            #expect(stats.commits <= stats.committedJobs)
            await store.close()
        }
    }

    @Test("the longest transaction is measured from BEGIN until COMMIT returned")
    func longestTransactionMeasured() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/l.sqlite"), migrations: testMigrations)
            #expect(store.writerStatistics.longestTransaction == .zero)
            _ = try await store.write { db throws(StoreError) in try insertRow(db, writer: 0, seq: 0) }
            #expect(store.writerStatistics.longestTransaction > .zero)
            // A job that holds its transaction open until another write is queued (a condition, not a pause),
            // timing itself: the transaction around it lasted at least as long.
            let held = Mutex(Duration.zero)
            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await store.write { db throws(StoreError) in
                    let began = ContinuousClock.now
                    startedContinuation.yield()
                    store.waitUntilQueued(atLeast: 1, closing: false)
                    _ = try insertRow(db, writer: 0, seq: 1)
                    held.withLock { $0 = began.duration(to: .now) }
                }
            }
            for await _ in started { break }
            _ = try await store.write { db throws(StoreError) in try insertRow(db, writer: 0, seq: 2) }
            try await holder.value
            let job = held.withLock { $0 }
            #expect(job > .zero)
            #expect(store.writerStatistics.longestTransaction >= job)
            await store.close()
        }
    }

    @Test("jobs queued while the writer is busy are committed together in one transaction")
    func queuedJobsShareOneCommit() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/b.sqlite", commitWindow: .seconds(60)),
                                       migrations: testMigrations)
            let blocker = await blockWriter(store, untilQueued: 63)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<63 {
                    group.addTask { _ = try await store.write { db throws(StoreError) in try insertRow(db, writer: writer, seq: 0) } }
                }
                try await group.waitForAll()
            }
            try await blocker.value
            let stats = store.writerStatistics
            #expect(stats.commits == 1)
            #expect(stats.largestBatch == 64)
            #expect(try rowCount(store) == 64)
            await store.close()
        }
    }

    @Test("commitMaxWrites bounds every batch", arguments: [1, 8])
    func maxWritesBoundsBatches(maxWrites: Int) async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(
                StoreConfiguration(path: dir + "/m.sqlite", commitWindow: .seconds(60), commitMaxWrites: maxWrites),
                migrations: testMigrations)
            // Deterministic part: 1 + 63 queued jobs split into ceil(64 / max) full batches.
            let blocker = await blockWriter(store, untilQueued: 63)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<63 {
                    group.addTask { _ = try await store.write { db throws(StoreError) in try insertRow(db, writer: writer, seq: 0) } }
                }
                try await group.waitForAll()
            }
            try await blocker.value
            #expect(store.writerStatistics.commits == (64 + maxWrites - 1) / maxWrites)
            // Free-running part: concurrent writers never exceed the bound either.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<32 {
                    group.addTask {
                        for seq in 1...50 {
                            _ = try await store.write { db throws(StoreError) in try insertRow(db, writer: writer, seq: seq) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let stats = store.writerStatistics
            #expect(stats.largestBatch == maxWrites)
            #expect(stats.committedJobs == 64 + 32 * 50)
            #expect(stats.commits * maxWrites >= stats.committedJobs)
            await store.close()
        }
    }

    @Test("a failing job in a batch fails alone, its partial writes rolled back; the rest of the batch commits")
    func failingJobFailsAlone() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/f.sqlite", commitWindow: .seconds(60)),
                                       migrations: testMigrations)
            try await store.write { db throws(StoreError) in _ = try insertRow(db, writer: 99, seq: 0) }
            let commitsBefore = store.writerStatistics.commits
            let blocker = await blockWriter(store, untilQueued: 9)
            let outcomes = await withTaskGroup(of: (Int, Result<Int64, StoreError>).self) { group in
                for writer in 0..<9 {
                    group.addTask {
                        do throws(StoreError) {
                            let id = try await store.write { db throws(StoreError) in
                                if writer == 4 {
                                    _ = try insertRow(db, writer: 4, seq: 1)   // rolled back with its savepoint
                                    return try insertRow(db, writer: 99, seq: 0)  // duplicate → UNIQUE violation
                                }
                                return try insertRow(db, writer: writer, seq: 0)
                            }
                            return (writer, .success(id))
                        } catch {
                            return (writer, .failure(error))
                        }
                    }
                }
                var outcomes: [Int: Result<Int64, StoreError>] = [:]
                for await (writer, outcome) in group { outcomes[writer] = outcome }
                return outcomes
            }
            try await blocker.value
            for (writer, outcome) in outcomes {
                switch outcome {
                case .success: #expect(writer != 4)
                case .failure(let error):
                    #expect(writer == 4)
                    #expect(error.isUniqueViolation)
                }
            }
            let stats = store.writerStatistics
            #expect(stats.commits == commitsBefore + 1)
            #expect(stats.failedJobs == 1)
            #expect(try rowCount(store) == 1 + 1 + 8)  // earlier row + blocker + 8 good jobs
            let partial = try store.read { db throws(StoreError) in
                try db.scalar("SELECT count(*) FROM rows WHERE writer = 4", as: Int.self)
            }
            #expect(partial == 0)
            await store.close()
        }
    }

    @Test("the first job of a transaction (run without a savepoint) fails alone too: the jobs after it commit in the same batch")
    func failingFirstJobFailsAlone() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/first.sqlite", commitWindow: .seconds(60)),
                                       migrations: testMigrations)
            let commitsBefore = store.writerStatistics.commits
            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            let first = Task {
                try await store.write { db throws(StoreError) in
                    startedContinuation.yield()
                    store.waitUntilQueued(atLeast: 3, closing: false)
                    _ = try insertRow(db, writer: 7, seq: 0)
                    _ = try insertRow(db, writer: 7, seq: 0)  // duplicate → UNIQUE violation
                }
            }
            for await _ in started { break }
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for writer in 0..<3 {
                    group.addTask { try await store.write { db throws(StoreError) in try insertRow(db, writer: writer, seq: 0) } }
                }
                return try await group.reduce(into: [Int64]()) { $0.append($1) }
            }
            #expect(ids.count == 3)
            let failure = await #expect(throws: StoreError.self) { try await first.value }
            #expect(failure?.isUniqueViolation == true)
            let stats = store.writerStatistics
            #expect(stats.commits == commitsBefore + 1)
            #expect(stats.failedJobs == 1 && stats.failedBatches == 0)
            let writers = try store.read { db in
                try db.query("SELECT writer FROM rows ORDER BY writer").map { row in try row.get(0, as: Int.self) }
            }
            #expect(writers == [0, 1, 2])
            await store.close()
        }
    }

    @Test("an unannotated body may throw its own error: only its writes roll back, and the error arrives unchanged")
    func domainErrorRollsBackAlone() async throws {
        struct AppNotFound: Error, Equatable {}
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/d.sqlite"), migrations: testMigrations)
            await #expect(throws: AppNotFound()) {
                try await store.write { db in
                    _ = try insertRow(db, writer: 1, seq: 1)
                    throw AppNotFound()
                }
            }
            let id = try await store.write { db in try insertRow(db, writer: 2, seq: 1) }
            let writers = try store.read { db in
                try db.query("SELECT writer FROM rows").map { row in try row.get(0, as: Int.self) }
            }
            #expect(writers == [2])
            #expect(id > 0)
            await store.close()
            await #expect(throws: StoreError.closed) {
                try await store.write { db in try db.run("SELECT 1") }
            }
        }
    }

    @Test("a body that ends the transaction itself fails its batch, and the writer carries on")
    func bodyEndingTransaction() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/t.sqlite"), migrations: testMigrations)
            let error = await #expect(throws: StoreError.self) {
                try await store.write { db throws(StoreError) in try db.execute("COMMIT") }
            }
            guard case .transactionAborted = error else {
                Issue.record("expected .transactionAborted, got \(String(describing: error))")
                return
            }
            try await store.write { db throws(StoreError) in _ = try insertRow(db, writer: 1, seq: 1) }
            #expect(try rowCount(store) == 1)
            #expect(store.writerStatistics.failedBatches == 1)
            await store.close()
        }
    }
}

@Suite("Group-commit writer: failing writes")
struct GroupCommitWriterFailureTests {
    @Test("while the database refuses every write, the writer names the failure")
    func refusedWritesAreReported() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/t.sqlite"), migrations: testMigrations)
            try await store.write { db throws(StoreError) in _ = try insertRow(db, writer: 1, seq: 1) }
            #expect(store.writerStatistics.lastFailure == nil)
            // The writer's connection refuses writes from now on, as with a read-only database file.
            try await store.write { db throws(StoreError) in try db.run("PRAGMA query_only = ON") }
            for seq in 2...3 {
                let refused = await #expect(throws: StoreError.self) {
                    try await store.write { db throws(StoreError) in _ = try insertRow(db, writer: 1, seq: seq) }
                }
                #expect(refused?.isStorageFailure == true)
                #expect(store.writerStatistics.lastFailure?.contains("readonly") == true)
            }
            await store.close()
        }
    }

    @Test("a failed transaction is reported until the next write commits; a job failing on its own terms is not")
    func failureClearsOnCommit() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/t.sqlite"), migrations: testMigrations)
            await #expect(throws: StoreError.self) {
                try await store.write { db throws(StoreError) in try db.execute("COMMIT") }
            }
            #expect(store.writerStatistics.lastFailure != nil)
            try await store.write { db throws(StoreError) in _ = try insertRow(db, writer: 1, seq: 1) }
            #expect(store.writerStatistics.lastFailure == nil)
            await #expect(throws: StoreError.self) {
                try await store.write { db throws(StoreError) in try db.run("INSERT INTO no_such_table VALUES (1)") }
            }
            #expect(store.writerStatistics.lastFailure == nil)
            await store.close()
        }
    }
}
