import Foundation
import TandemStore

/// `tandem bench store`: durable single-row INSERT throughput of the group-commit writer versus
/// per-row transactions, on fresh databases in `directory`, for synchronous NORMAL and FULL.
///
/// Variants (each on its own fresh file):
/// 1. group commit — `writers` concurrent tasks, each submitting one single-row INSERT through
///    `Store.write` and awaiting its commit before the next (`rows` in total);
/// 2. per-row, async — the same, but `commitMaxWrites = 1` (every row its own BEGIN/INSERT/COMMIT
///    on the one writer connection; `referenceRows` in total);
/// 3. per-row, direct — one loop of BEGIN IMMEDIATE / INSERT / COMMIT on one connection,
///    no tasks, no thread hop (`referenceRows`).
/// Not measured: reads, contention with readers, OS-crash durability, multi-row statements.
func runStoreBenchmark(
    rows: Int = 200_000,
    referenceRows: Int = 20_000,
    writers: Int = 64,
    commitWindow: Duration = .milliseconds(2),
    commitMaxWrites: Int = 512,
    syncModes: [SynchronousMode] = [.normal, .full],
    directory: String
) async throws(StoreError) -> String {
    var lines: [String] = []
    func emit(_ line: String) {
        lines.append(line)
        print(line)
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    emit("store bench: cores=\(cores) writers=\(writers) window=\(BenchSupport.format(commitWindow)) maxBatch=\(commitMaxWrites) "
        + "rows=\(rows) referenceRows=\(referenceRows) sqlite=\(BenchSupport.sqliteVersion())")
    for sync in syncModes {
        let groupConfig = StoreConfiguration(
            path: BenchSupport.freshPath(directory, "group-\(sync.rawValue)"),
            commitWindow: commitWindow, commitMaxWrites: commitMaxWrites, synchronous: sync)
        let group = try await BenchSupport.concurrentWrites(groupConfig, rows: rows, writers: writers)
        emit("sync=\(sync.rawValue) group-commit     \(writers) writers \(group.summary)")
        let perRowConfig = StoreConfiguration(
            path: BenchSupport.freshPath(directory, "perrow-async-\(sync.rawValue)"),
            commitWindow: commitWindow, commitMaxWrites: 1, synchronous: sync)
        let perRowAsync = try await BenchSupport.concurrentWrites(perRowConfig, rows: referenceRows, writers: writers)
        emit("sync=\(sync.rawValue) per-row async    \(writers) writers maxBatch=1 \(perRowAsync.summary)")
        let direct = try BenchSupport.directLoop(
            path: BenchSupport.freshPath(directory, "perrow-direct-\(sync.rawValue)"), rows: referenceRows, sync: sync)
        emit("sync=\(sync.rawValue) per-row direct   1 thread, no async hop \(direct.summary)")
        emit("sync=\(sync.rawValue) ratio group-commit / per-row async = \(BenchSupport.format(group.rate / perRowAsync.rate))x, "
            + "group-commit / per-row direct = \(BenchSupport.format(group.rate / direct.rate))x")
    }
    return lines.joined(separator: "\n")
}

/// Helpers of ``runStoreBenchmark`` (a namespace; no state).
enum BenchSupport {
    struct Measurement {
        var rows: Int
        var counted: Int
        var seconds: Double
        var commits: Int?
        var largestBatch: Int?
        /// Per-write latency (submit → resumed after commit), sorted; empty for the direct loop.
        var latencies: [Duration] = []

        var rate: Double { Double(rows) / seconds }
        var summary: String {
            var text = "rows=\(rows) counted=\(counted) time=\(format(seconds))s rate=\(Int(rate.rounded())) rows/s"
            if let commits, commits > 0 {
                text += " commits=\(commits) avgBatch=\(format(Double(rows) / Double(commits))) largestBatch=\(largestBatch ?? 0)"
            }
            if !latencies.isEmpty {
                text += " latency p50=\(format(percentile(0.50))) p99=\(format(percentile(0.99))) max=\(format(latencies[latencies.count - 1]))"
            }
            return text
        }

        func percentile(_ fraction: Double) -> Duration {
            latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
        }
    }

    static let schema = [Migration(version: 1, name: "bench", sql: """
        CREATE TABLE bench_rows (
            id INTEGER PRIMARY KEY,
            writer INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            payload TEXT NOT NULL,
            created_at INTEGER NOT NULL
        ) STRICT;
        """)]
    static let insert = "INSERT INTO bench_rows (writer, seq, payload, created_at) VALUES (?, ?, ?, ?)"
    static let payload = String(repeating: "tandem-payload-", count: 7)

    static func concurrentWrites(_ config: StoreConfiguration, rows: Int, writers: Int) async throws(StoreError) -> Measurement {
        let store = try Store.open(config, migrations: schema)
        let total = rows
        let clock = ContinuousClock()
        let start = clock.now
        let (failures, latencies) = await withTaskGroup(of: (Int, [Duration]).self, returning: (Int, [Duration]).self) { group in
            for writer in 0..<writers {
                let share = rows / writers + (writer < rows % writers ? 1 : 0)
                group.addTask {
                    var failures = 0
                    var latencies: [Duration] = []
                    latencies.reserveCapacity(share)
                    for seq in 0..<share {
                        let submitted = clock.now
                        do {
                            try await store.write { db throws(StoreError) in
                                try db.run(insert, [.integer(Int64(writer)), .integer(Int64(seq)), .text(payload), .integer(0)])
                            }
                        } catch {
                            failures += 1
                        }
                        latencies.append(submitted.duration(to: clock.now))
                    }
                    return (failures, latencies)
                }
            }
            var failures = 0
            var all: [Duration] = []
            for await (writerFailures, writerLatencies) in group {
                failures += writerFailures
                all.append(contentsOf: writerLatencies)
            }
            return (failures, all.sorted())
        }
        let elapsed = start.duration(to: clock.now)
        let stats = store.writerStatistics
        let counted = try store.read { db throws(StoreError) in
            try db.scalar("SELECT count(*) FROM bench_rows", as: Int.self) ?? 0
        }
        await store.close()
        if failures > 0 {
            throw .transactionAborted(message: "\(failures) benchmark writes failed")
        }
        return Measurement(rows: total, counted: counted, seconds: seconds(elapsed),
                           commits: stats.commits, largestBatch: stats.largestBatch, latencies: latencies)
    }

    static func directLoop(path: String, rows: Int, sync: SynchronousMode) throws(StoreError) -> Measurement {
        let db = try Connection(path: path, options: ConnectionOptions(synchronous: sync))
        defer { db.close() }
        try db.migrate(schema)
        let clock = ContinuousClock()
        let start = clock.now
        for seq in 0..<rows {
            try db.run("BEGIN IMMEDIATE")
            try db.run(insert, [.integer(0), .integer(Int64(seq)), .text(payload), .integer(0)])
            try db.run("COMMIT")
        }
        let elapsed = start.duration(to: clock.now)
        let counted = try db.scalar("SELECT count(*) FROM bench_rows", as: Int.self) ?? 0
        return Measurement(rows: rows, counted: counted, seconds: seconds(elapsed), commits: rows, largestBatch: 1)
    }

    static func freshPath(_ directory: String, _ name: String) -> String {
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
        let path = URL(fileURLWithPath: directory).appendingPathComponent("bench-\(safe).sqlite").path
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        return path
    }

    static func sqliteVersion() -> String {
        let db = try? Connection(path: ":memory:")
        return (try? db?.scalar("SELECT sqlite_version()", as: String.self)) ?? "?"
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    static func format(_ duration: Duration) -> String {
        let micros = seconds(duration) * 1e6
        return micros >= 1000 ? String(format: "%.2fms", micros / 1000) : String(format: "%.0fµs", micros)
    }

    static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
