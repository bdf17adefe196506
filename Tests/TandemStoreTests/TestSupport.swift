import Foundation
import Testing
@testable import TandemStore

/// A fresh directory per test, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "tandem-store-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// The version of the newest migration in ``TandemSchema/migrations``.
let newestSchemaVersion = TandemSchema.migrations.map(\.version).max() ?? 0

/// Migrations for writer tests: a plain table plus a unique key to provoke violations.
let testMigrations = [Migration(version: 1, name: "test rows", sql: """
    CREATE TABLE rows (
        id INTEGER PRIMARY KEY,
        writer INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        UNIQUE (writer, seq)
    ) STRICT;
    """)]

func insertRow(_ db: Connection, writer: Int, seq: Int) throws(StoreError) -> Int64 {
    try db.run("INSERT INTO rows (writer, seq) VALUES (?, ?)", [.integer(Int64(writer)), .integer(Int64(seq))])
    return db.lastInsertRowID
}

func rowCount(_ store: Store) throws -> Int {
    try store.read { db throws(StoreError) in try db.scalar("SELECT count(*) FROM rows", as: Int.self) ?? 0 }
}

/// Starts a write whose body blocks the writer until `queued` more jobs are waiting (and, with
/// `untilClosing`, until close was requested); returns once that body is running, so every job
/// submitted afterwards lands in the queue behind it — a deterministic batch without sleeping.
func blockWriter(_ store: Store, untilQueued queued: Int, untilClosing: Bool = false) async -> Task<Void, any Error> {
    await holdWriter(store, untilQueued: queued, untilClosing: untilClosing) { db throws(StoreError) in
        _ = try insertRow(db, writer: -1, seq: 0)
    }
}

/// Like ``blockWriter(_:untilQueued:untilClosing:)``, with `body` (by default nothing) as the holding job's write.
func holdWriter(_ store: Store, untilQueued queued: Int, untilClosing: Bool = false,
                then body: @escaping @Sendable (Connection) throws(StoreError) -> Void = { _ throws(StoreError) in }) async
    -> Task<Void, any Error> {
    let (started, startedContinuation) = AsyncStream<Void>.makeStream()
    let task = Task {
        try await store.write { db throws(StoreError) in
            startedContinuation.yield()
            store.waitUntilQueued(atLeast: queued, closing: untilClosing)
            try body(db)
        }
    }
    for await _ in started { break }
    return task
}
