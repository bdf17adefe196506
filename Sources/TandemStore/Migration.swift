/// One schema step, identified by a positive, strictly increasing `version`.
///
/// Applied by ``Connection/migrate(_:fresh:)`` in its own `BEGIN IMMEDIATE` transaction together with
/// `PRAGMA user_version = version`, so a migration is either fully applied and recorded or not at all.
/// Not guaranteed: that `sql` may contain its own BEGIN/COMMIT (it must not), or that a
/// migration can be undone (there are no down-migrations).
public struct Migration: Sendable, Hashable {
    public let version: Int
    public let name: String
    public let sql: String
    /// For SQLite's 12-step table rebuild (create `x_new`, copy, `DROP TABLE x`, rename): the
    /// runner sets `PRAGMA foreign_keys = OFF` before the migration's transaction (the pragma is a
    /// no-op inside one), runs `PRAGMA foreign_key_check` before COMMIT — any violation rolls the
    /// migration back — and sets `foreign_keys = ON` again afterwards, whatever happened.
    /// Without it, dropping a parent table that has child rows fails. Not guaranteed: that other
    /// connections open meanwhile stop enforcing anything (the pragma is per connection).
    public let rebuildsTables: Bool

    public init(version: Int, name: String, sql: String, rebuildsTables: Bool = false) {
        self.version = version
        self.name = name
        self.sql = sql
        self.rebuildsTables = rebuildsTables
    }
}

/// One script that creates, on a new database, exactly what a list of migrations leaves behind: every table,
/// index and trigger in its final form and the rows the migrations seed.
///
/// Applied by ``Connection/migrate(_:fresh:)`` instead of replaying `migrations`, in one `BEGIN IMMEDIATE`
/// transaction with `PRAGMA user_version = version`, and only to a new database (version 0, no schema objects).
/// A squashed schema is a shortcut, not a release: the migrations it stands for stay, and databases that already
/// have some of them go on through the rest one by one.
/// Not guaranteed: that `sql` matches `migrations` — that is what a test must show (`FreshSchemaTests`).
public struct SquashedSchema: Sendable, Hashable {
    /// The migrations the script stands for, in order: a list given to ``Connection/migrate(_:fresh:)`` must
    /// begin with exactly these for the script to be used.
    public let migrations: [Migration]
    /// The whole schema; like a migration's, it must not contain BEGIN/COMMIT.
    public let sql: String

    public init(squashing migrations: [Migration], sql: String) {
        self.migrations = migrations
        self.sql = sql
    }

    /// The version a database has once the script ran: the newest of ``migrations`` (0 when there are none).
    public var version: Int {
        migrations.last?.version ?? 0
    }
}

extension Connection {
    /// The database's `PRAGMA user_version` (0 for a new database).
    public var schemaVersion: Int {
        get throws(StoreError) {
            Int(try scalar("PRAGMA user_version", as: Int64.self) ?? 0)
        }
    }

    /// Applies, in order, every migration whose version is above the database's current version.
    /// Idempotent: a database already at the newest version is left untouched.
    ///
    /// With `fresh`, a new database — `user_version` 0 and nothing in `sqlite_schema`, checked inside the write
    /// lock — gets `fresh`'s script instead of the migrations it stands for, in one transaction, then any
    /// migrations of the list newer than it one by one. `fresh` is used only when `migrations` begins with exactly
    /// `fresh.migrations`; a list that does not (cut short to build an older database, or another schema
    /// altogether) is replayed as without it. A database that is not new is migrated step by step either way.
    ///
    /// - Returns: the versions applied by this call, in order (empty when already up to date). When `fresh` was
    ///   applied it counts as one version, its own: a new database gets `[fresh.version]` followed by the
    ///   versions of the later migrations, where replaying would return every migration's version.
    /// - Throws: ``StoreError/migration(version:message:)`` when the list is not strictly increasing
    ///   positive versions, when the database's version is newer than the newest migration, or when
    ///   a migration or `fresh` fails (its transaction is rolled back; earlier ones stay applied).
    @discardableResult
    public func migrate(_ migrations: [Migration], fresh: SquashedSchema? = nil) throws(StoreError) -> [Int] {
        var previous = 0
        for migration in migrations {
            guard migration.version > previous else {
                throw .migration(version: migration.version,
                                 message: "migration versions must be positive and strictly increasing (after \(previous))")
            }
            previous = migration.version
        }
        let newestKnown = previous
        let current = try schemaVersion
        guard current <= newestKnown else {
            throw .migration(version: current,
                             message: "database schema version \(current) is newer than this build supports (\(newestKnown))")
        }
        var applied: [Int] = []
        var reached = current
        if current == 0, let fresh, fresh.version > 0, migrations.starts(with: fresh.migrations),
           try applyIfNew(fresh) {
            applied.append(fresh.version)
            reached = fresh.version
        }
        for migration in migrations where migration.version > reached {
            try apply(migration)
            applied.append(migration.version)
        }
        return applied
    }

    /// Runs `schema`'s script and records its version in one `BEGIN IMMEDIATE` transaction, if the database is
    /// still new once the write lock is held.
    ///
    /// - Returns: `false`, having changed nothing, when the database has a version or any schema object by then
    ///   (another process migrated it meanwhile, or it holds tables of its own): the caller replays migrations.
    private func applyIfNew(_ schema: SquashedSchema) throws(StoreError) -> Bool {
        do throws(StoreError) {
            try execute("BEGIN IMMEDIATE")
        } catch {
            throw .migration(version: schema.version, message: "cannot begin: \(error)")
        }
        do throws(StoreError) {
            let objects = try scalar("SELECT count(*) FROM sqlite_schema", as: Int.self) ?? 0
            guard try schemaVersion == 0, objects == 0 else {
                try execute("ROLLBACK")
                return false
            }
            try execute(schema.sql)
            try execute("PRAGMA user_version = \(schema.version)")
            try execute("COMMIT")
            return true
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw .migration(version: schema.version, message: "squashed schema: \(error)")
        }
    }

    private func apply(_ migration: Migration) throws(StoreError) {
        guard migration.rebuildsTables else {
            try applyInTransaction(migration)
            return
        }
        do throws(StoreError) {
            try execute("PRAGMA foreign_keys = OFF")
        } catch {
            throw .migration(version: migration.version, message: "cannot turn foreign keys off: \(error)")
        }
        let outcome: Result<Void, StoreError>
        do throws(StoreError) {
            try applyInTransaction(migration)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        do throws(StoreError) {
            try execute("PRAGMA foreign_keys = ON")
        } catch {
            throw .migration(version: migration.version, message: "cannot turn foreign keys back on: \(error)")
        }
        try outcome.get()
    }

    private func applyInTransaction(_ migration: Migration) throws(StoreError) {
        do throws(StoreError) {
            try execute("BEGIN IMMEDIATE")
        } catch {
            throw .migration(version: migration.version, message: "cannot begin: \(error)")
        }
        do throws(StoreError) {
            // Re-check inside the write lock: another process may have migrated meanwhile.
            let current = try schemaVersion
            guard current < migration.version else {
                try execute("ROLLBACK")
                return
            }
            try execute(migration.sql)
            if migration.rebuildsTables {
                try checkForeignKeys()
            }
            try execute("PRAGMA user_version = \(migration.version)")
            try execute("COMMIT")
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw .migration(version: migration.version, message: "\(migration.name): \(error)")
        }
    }

    /// Throws when `PRAGMA foreign_key_check` reports any row (checked while enforcement is off).
    private func checkForeignKeys() throws(StoreError) {
        let violations = try query("PRAGMA foreign_key_check")
        guard let first = violations.first else { return }
        let table = (try? first.get("table", as: String.self)) ?? "?"
        let parent = (try? first.get("parent", as: String.self)) ?? "?"
        throw .constraint(extendedCode: .constraintForeignKey,
                          message: "\(violations.count) foreign-key violation(s), first in \(table) → \(parent)",
                          sql: "PRAGMA foreign_key_check")
    }
}
