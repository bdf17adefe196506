/// One schema step, identified by a positive, strictly increasing `version`.
///
/// Applied by ``Connection/migrate(_:)`` in its own `BEGIN IMMEDIATE` transaction together with
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
    /// - Returns: the versions applied by this call (empty when already up to date).
    /// - Throws: ``StoreError/migration(version:message:)`` when the list is not strictly increasing
    ///   positive versions, when the database's version is newer than the newest migration, or when
    ///   a migration fails (its transaction is rolled back; earlier ones stay applied).
    @discardableResult
    public func migrate(_ migrations: [Migration]) throws(StoreError) -> [Int] {
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
        for migration in migrations where migration.version > current {
            try apply(migration)
            applied.append(migration.version)
        }
        return applied
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
