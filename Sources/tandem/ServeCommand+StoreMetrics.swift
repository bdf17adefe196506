import Synchronization
import TandemCore
import TandemStore

extension ServeCommand {
    /// The store's metrics: its writer's counters (any backend), SQLite's checkpoint counters (SQLite only), and
    /// the spool and outbox backlogs as last sampled.
    static func registerStoreMetrics(_ registry: MetricsRegistry, store: any TandemDatabase, backlogs: BacklogSampler) {
        let counters: [(name: String, help: String, read: @Sendable (WriterStatistics) -> Int)] = [
            ("tandem_store_commits_total", "Write transactions committed by the store's group-commit writer.", { $0.commits }),
            ("tandem_store_writes_total", "Write jobs committed (several share one transaction).", { $0.committedJobs }),
            ("tandem_store_failed_commits_total", "Write transactions that failed (BEGIN, COMMIT or the transaction itself); their callers got the error.",
             { $0.failedBatches }),
        ]
        for counter in counters {
            registry.counter(counter.name, help: counter.help) { Double(counter.read(store.writerStatistics)) }
        }
        registry.gauge("tandem_store_largest_commit_writes", help: "Most write jobs ever committed in one transaction.") {
            Double(store.writerStatistics.largestBatch)
        }
        registry.gauge("tandem_store_writes_failing",
                       help: "1 while the store's last commit failed and none has succeeded since (see /healthz), else 0.") {
            store.writerStatistics.lastFailure == nil ? 0 : 1
        }
        registry.gauge("tandem_store_longest_commit_seconds", help: "The longest write transaction so far, from BEGIN until COMMIT returned.") {
            Double(store.writerStatistics.longestTransaction.milliseconds) / 1_000
        }
        registry.gauge("tandem_spool_backlog", help: "Accepted recipients of spooled (bulk) messages not started yet (sampled every second).") {
            Double(backlogs.current.spool)
        }
        registry.gauge("tandem_outbox_backlog", help: "Status reports queued and neither delivered nor given up (sampled every second).") {
            Double(backlogs.current.outbox)
        }
        guard let sqlite = store as? Store else { return }
        let checkpoints: [(name: String, help: String, read: @Sendable (CheckpointStatistics) -> Int)] = [
            ("tandem_store_checkpoints_total", "Background checkpoint passes that copied the write-ahead log into the database.", { $0.passes }),
            ("tandem_store_writer_checkpoints_total", "Log remainders copied by the writer between transactions so that the log could restart.",
             { $0.writerPasses }),
            ("tandem_store_checkpoint_failures_total", "Background checkpoint passes that did not run (busy) or failed.", { $0.failedPasses }),
            ("tandem_store_wal_restarts_total", "Times the write-ahead log started again from its beginning.", { $0.logRestarts }),
        ]
        for counter in checkpoints {
            registry.counter(counter.name, help: counter.help) { Double(counter.read(sqlite.checkpointStatistics)) }
        }
        registry.gauge("tandem_store_wal_largest_pages", help: "The longest the write-ahead log has been, in pages.") {
            Double(sqlite.checkpointStatistics.largestLog)
        }
        registry.gauge("tandem_store_longest_writer_checkpoint_seconds",
                       help: "The longest log remainder the writer copied itself between transactions (every write waited for it).") {
            Double(sqlite.writerStatistics.longestCheckpoint.milliseconds) / 1_000
        }
        registry.gauge("tandem_store_longest_checkpoint_seconds", help: "The longest background checkpoint pass so far.") {
            Double(sqlite.checkpointStatistics.longestPass.milliseconds) / 1_000
        }
    }
}

/// The spool's and the outbox's backlogs, read through the store once a second, so that a scrape of `/metrics`
/// (a synchronous route) never waits for the database. -1 until the first read, and while reads fail.
final class BacklogSampler: Sendable {
    struct Figures: Sendable {
        var spool = -1
        var outbox = -1
    }

    private let store: any TandemDatabase
    private let figures = Mutex(Figures())
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(store: any TandemDatabase) {
        self.store = store
    }

    var current: Figures { figures.withLock { $0 } }

    /// Samples now, then every second until ``stop()``.
    func start() async {
        await sample()
        task.withLock {
            $0 = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    await self.sample()
                }
            }
        }
    }

    private func sample() async {
        let spool = (try? await store.queuedSpoolRecipients()) ?? -1
        let outbox = (try? await store.outboxBacklog()) ?? -1
        figures.withLock { $0 = Figures(spool: spool, outbox: outbox) }
    }

    func stop() async {
        let running = task.withLock { task in defer { task = nil }; return task }
        running?.cancel()
        await running?.value
    }
}
