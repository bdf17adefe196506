import Foundation
import Testing
@testable import TandemStore

@Suite("Squashed schema for new databases")
struct FreshSchemaTests {
    /// Everything compared of a database, keyed by what it is (`sqlite_schema`, `table_xinfo accounts`, `rows outbox`, …):
    /// `user_version`; `sqlite_schema`'s type, name, table name and SQL text (whitespace runs as one space), sorted;
    /// and per table (`sqlite_sequence` included) `PRAGMA table_xinfo`, `index_list`, `foreign_key_list`, its rows
    /// (sorted), and `index_xinfo` of each of its indexes. Read through a new connection, so index lists come in
    /// the order SQLite loads them from the file.
    private static func picture(of path: String) throws -> [String: [[SQLValue]]] {
        let db = try Connection(path: path)
        defer { db.close() }
        var parts: [String: [[SQLValue]]] = [:]
        parts["user_version"] = try db.query("PRAGMA user_version").map(\.values)
        parts["sqlite_schema"] = try db.query("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name")
            .map { row in
                row.values.enumerated().map { index, value in
                    guard index == 3, case .text(let sql) = value else { return value }
                    return .text(sql.split(whereSeparator: \.isWhitespace).joined(separator: " "))
                }
            }
        let tables = try db.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .map { row throws(StoreError) in try row.get(0, as: String.self) }
        for table in tables {
            parts["table_xinfo \(table)"] = try db.query("SELECT * FROM pragma_table_xinfo(?)", [.text(table)]).map(\.values)
            let indexes = try db.query("SELECT * FROM pragma_index_list(?)", [.text(table)])
            parts["index_list \(table)"] = indexes.map(\.values)
            for index in indexes {
                let name = try index.get("name", as: String.self)
                parts["index_xinfo \(name)"] = try db.query("SELECT * FROM pragma_index_xinfo(?)", [.text(name)]).map(\.values)
            }
            parts["foreign_key_list \(table)"] = try db.query("SELECT * FROM pragma_foreign_key_list(?)", [.text(table)])
                .map(\.values)
            parts["rows \(table)"] = try db.query("SELECT * FROM \"\(table)\"").map(\.values)
                .sorted { String(describing: $0) < String(describing: $1) }
        }
        return parts
    }

    /// Expects `actual` to equal `expected` part by part (each difference reported under its key).
    private static func expectSame(_ actual: [String: [[SQLValue]]], as expected: [String: [[SQLValue]]],
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        for key in Set(actual.keys).union(expected.keys).sorted() {
            #expect(actual[key] == expected[key], "\(key)", sourceLocation: sourceLocation)
        }
    }

    /// A database built by the squashed schema's migrations one at a time, each in its own call, from an empty file.
    private static func stepByStep(at path: String) throws -> [String: [[SQLValue]]] {
        let db = try Connection(path: path)
        for migration in TandemSchema.fresh.migrations {
            #expect(try db.migrate([migration]) == [migration.version])
        }
        db.close()
        return try picture(of: path)
    }

    @Test("the squashed schema stands for migrations 1–27, which the released list begins with")
    func standsForTheReleasedMigrations() {
        #expect(TandemSchema.fresh.version == 27)
        #expect(TandemSchema.fresh.migrations.map(\.version) == TandemSchema.migrations.map(\.version).filter { $0 <= 27 })
        #expect(TandemSchema.migrations.starts(with: TandemSchema.fresh.migrations))
    }

    @Test("a new database gets exactly what migrations 1–27 leave: schema text, columns, indexes, keys and rows")
    func freshEqualsStepByStep() async throws {
        try await withTemporaryDirectory { dir in
            let stepped = try Self.stepByStep(at: dir + "/stepped.sqlite")

            let db = try Connection(path: dir + "/fresh.sqlite")
            #expect(try db.migrate(TandemSchema.fresh.migrations, fresh: TandemSchema.fresh) == [27])
            db.close()
            let fresh = try Self.picture(of: dir + "/fresh.sqlite")

            // What is compared is all there (an empty picture would compare equal too).
            #expect(fresh["user_version"] == [[.integer(27)]])
            #expect(fresh["rows sqlite_sequence"] == [[.text("mymsp_recipients"), .integer(2_000_000)]])
            #expect(fresh["rows mymsp_sequence"] == [[.integer(1), .integer(0)]])
            #expect(fresh["sqlite_schema"]?.filter { $0.first == .text("table") }.count == 24)
            #expect(fresh["sqlite_schema"]?.filter { $0.first == .text("trigger") }.count == 3)
            #expect(fresh["index_list messages"]?.count == 5)
            Self.expectSame(fresh, as: stepped)
        }
    }

    @Test("a database at an older version still migrates step by step, to what a new one gets",
          arguments: TandemSchema.migrations.map(\.version).filter { $0 < 27 })
    func olderDatabaseMigratesForward(version: Int) async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/old.sqlite"
            let old = try Connection(path: path)
            try old.migrate(TandemSchema.migrations.filter { $0.version <= version })
            #expect(try old.schemaVersion == version)
            old.close()

            let store = try Store.open(StoreConfiguration(path: path))
            #expect(store.appliedMigrations == TandemSchema.migrations.map(\.version).filter { $0 > version })
            #expect(try store.schemaVersion() == newestSchemaVersion)
            await store.close()

            let fresh = try Connection(path: dir + "/fresh.sqlite")
            try fresh.migrate(TandemSchema.migrations, fresh: TandemSchema.fresh)
            fresh.close()
            Self.expectSame(try Self.picture(of: path), as: try Self.picture(of: dir + "/fresh.sqlite"))
        }
    }

    @Test("a new store, opened as the server opens it, gets the squashed schema in one step")
    func newStoreUsesFreshSchema() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/tandem.sqlite"
            let store = try Store.open(StoreConfiguration(path: path))
            // Not replayed: the squashed schema's version, then only migrations released after it (none yet).
            let later = TandemSchema.migrations.map(\.version).filter { $0 > TandemSchema.fresh.version }
            #expect(store.appliedMigrations == [27] + later)
            #expect(try store.schemaVersion() == newestSchemaVersion)
            await store.close()

            let reopened = try Store.open(StoreConfiguration(path: path))
            #expect(reopened.appliedMigrations == [])
            await reopened.close()

            let replayed = try Connection(path: dir + "/replayed.sqlite")
            #expect(try replayed.migrate(TandemSchema.migrations) == TandemSchema.migrations.map(\.version))
            replayed.close()
            Self.expectSame(try Self.picture(of: path), as: try Self.picture(of: dir + "/replayed.sqlite"))
        }
    }

    @Test("the squashed schema is used only for an empty database and a list that begins with its migrations")
    func freshOnlyWhereItFits() async throws {
        try await withTemporaryDirectory { dir in
            // Something in the file already: the migrations are replayed (and meet the table as they would have).
            let occupied = try Connection(path: dir + "/occupied.sqlite")
            try occupied.execute("CREATE TABLE unrelated (x INTEGER) STRICT")
            #expect(try occupied.migrate(TandemSchema.migrations, fresh: TandemSchema.fresh)
                    == TandemSchema.migrations.map(\.version))
            occupied.close()

            // A list cut short builds the older database, whatever `fresh` says.
            let older = try Connection(path: dir + "/older.sqlite")
            let firstFive = Array(TandemSchema.migrations.prefix(5))
            #expect(try older.migrate(firstFive, fresh: TandemSchema.fresh) == [1, 2, 3, 4, 5])
            #expect(try older.schemaVersion == 5)
            older.close()

            // Migrations after the squashed ones follow it, one by one.
            let released = TandemSchema.migrations.map(\.version).filter { $0 > TandemSchema.fresh.version }
            let next = newestSchemaVersion + 1
            let later = Migration(version: next, name: "later", sql: "CREATE TABLE later (x INTEGER) STRICT;")
            let extended = try Connection(path: dir + "/extended.sqlite")
            #expect(try extended.migrate(TandemSchema.migrations + [later], fresh: TandemSchema.fresh) == [27] + released + [next])
            #expect(try extended.schemaVersion == next)
            #expect(try extended.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'later'", as: Int.self) == 1)
            extended.close()
        }
    }
}
