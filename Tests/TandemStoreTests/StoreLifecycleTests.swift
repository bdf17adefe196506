import Foundation
import Testing
@testable import TandemStore

@Suite("Store lifecycle")
struct StoreLifecycleTests {
    @Test("close lets queued writes finish, later writes fail with .closed, and a reopen sees everything")
    func closeDrainsQueue() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/c.sqlite"
            let store = try Store.open(StoreConfiguration(path: path, commitWindow: .seconds(60), commitMaxWrites: 4),
                                       migrations: testMigrations)
            // The writer is held until 20 jobs are queued *and* close() has been called.
            let blocker = await blockWriter(store, untilQueued: 20, untilClosing: true)
            let queued = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<20 {
                        group.addTask { _ = try await store.write { db throws(StoreError) in try insertRow(db, writer: writer, seq: 0) } }
                    }
                    try await group.waitForAll()
                }
            }
            await store.waitForQueue(atLeast: 20)
            await store.close()
            try await blocker.value
            try await queued.value
            #expect(store.writerStatistics.committedJobs == 21)
            await #expect(throws: StoreError.closed) {
                try await store.write { db throws(StoreError) in try insertRow(db, writer: 0, seq: 1) }
            }
            #expect(throws: StoreError.closed) { try store.read { db throws(StoreError) in try db.run("SELECT 1") } }
            #expect(store.ping() == false)
            await store.close()  // idempotent

            // The closing checkpoint truncated the WAL (or SQLite removed it with the last connection).
            let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
            #expect(walSize == 0)
            let reopened = try Store.open(StoreConfiguration(path: path), migrations: testMigrations)
            #expect(try rowCount(reopened) == 21)
            await reopened.close()
        }
    }

    @Test("ping runs a real SELECT 1 through a reader and reuses its prepared statement")
    func pingIsCheap() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/p.sqlite", readers: 1))
            for _ in 0..<10 { #expect(store.ping()) }
            let stats = try store.read { db throws(StoreError) in db.statementCacheStatistics }
            #expect(stats.prepares == 1)
            #expect(stats.hits == 9)
            await store.close()
            #expect(store.ping() == false)
        }
    }

    @Test("open creates missing parent directories")
    func createsDirectories() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/a/b/c/tandem.sqlite"
            let store = try Store.open(StoreConfiguration(path: path))
            #expect(FileManager.default.fileExists(atPath: path))
            await store.close()
        }
    }

    @Test("more concurrent reads than pooled readers all succeed")
    func readerPoolBlocksWhenExhausted() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/r.sqlite", readers: 2), migrations: testMigrations)
            try await store.write { db throws(StoreError) in _ = try insertRow(db, writer: 0, seq: 0) }
            let counts = try await withThrowingTaskGroup(of: Int.self, returning: [Int].self) { group in
                for _ in 0..<16 {
                    group.addTask { try rowCount(store) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts == Array(repeating: 1, count: 16))
            await store.close()
        }
    }

    @Test("readSnapshot sees one snapshot across statements while writes commit")
    func readSnapshot() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/s.sqlite"), migrations: testMigrations)
            try await store.write { db throws(StoreError) in _ = try insertRow(db, writer: 0, seq: 0) }
            let (first, second) = try store.readSnapshot { db throws(StoreError) in
                let first = try db.scalar("SELECT count(*) FROM rows", as: Int.self)
                // A commit from another connection between the two statements stays invisible.
                let other = try Connection(path: dir + "/s.sqlite")
                _ = try insertRow(other, writer: 1, seq: 0)
                let second = try db.scalar("SELECT count(*) FROM rows", as: Int.self)
                return (first, second)
            }
            #expect(first == 1 && second == 1)
            #expect(try rowCount(store) == 2)
            await store.close()
        }
    }
}
