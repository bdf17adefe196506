import TandemCore
import TandemStore

/// Opens the store a configuration names: the embedded SQLite database at `database.path`, or PostgreSQL at
/// `database.url`.
enum StoreOpener {
    /// The store for `tandem serve`, with the lock that keeps a second server off the same database (held for
    /// as long as the value is).
    struct Serving {
        let store: any TandemDatabase
        let lock: AnyObject
        /// Whether the lock is still held, for a lock that can be lost while the process lives (PostgreSQL's ends
        /// with its connection); nil for one that cannot (SQLite's file lock).
        var stillHeld: (@Sendable () async -> Bool)?
    }

    static func open(configPath: String?, environment: [String: String]) async throws(CommandFailure) -> any TandemDatabase {
        let path = ConfigurationLoader.path(option: configPath, environment: environment)
        let configuration = try ConfigurationLoader.configuration(at: path, environment: environment)
        return try await open(configuration.database)
    }

    /// Opens the store for an administration command (no serving lock: commands run short transactions).
    static func open(_ database: Configuration.Database) async throws(CommandFailure) -> any TandemDatabase {
        if database.url != nil { return try await openPostgres(database) }
        return try openSQLite(database)
    }

    /// Takes the serving lock, then opens the store (and, for SQLite, nothing touches the file before the lock
    /// is held: a second server never runs recovery).
    static func openForServing(_ database: Configuration.Database, logger: Logger) async throws(CommandFailure) -> Serving {
        if database.url != nil { return try await openPostgresForServing(database, logger: logger) }
        let lock: ServerLock
        do {
            lock = try ServerLock(databasePath: database.path)
        } catch {
            throw CommandFailure(.failure, "cannot serve: \(error)")
        }
        let store = try openSQLite(database)
        let version = (try? store.schemaVersion()).map { Int64($0) } ?? -1
        logger.info("store open", ["backend": .string("sqlite"), "path": .string(database.path), "schemaVersion": .int(version)])
        return Serving(store: store, lock: lock)
    }

    /// Opens the store `parsed`'s configuration names, runs `body`, and closes the store whether `body`
    /// succeeded or not.
    static func with<T>(configPath: String?, environment: [String: String],
                        _ body: (any TandemDatabase) async throws(CommandFailure) -> T) async throws(CommandFailure) -> T {
        let store = try await open(configPath: configPath, environment: environment)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    private static func openSQLite(_ database: Configuration.Database) throws(CommandFailure) -> Store {
        do {
            return try Store.open(storeConfiguration(database))
        } catch {
            throw CommandFailure(.failure, "cannot open the database \(database.path): \(error)")
        }
    }

    static func storeConfiguration(_ database: Configuration.Database) -> StoreConfiguration {
        StoreConfiguration(path: database.path, readers: database.readers, busyTimeout: database.busyTimeout,
                           commitWindow: database.commitWindow, commitMaxWrites: database.commitMaxWrites,
                           synchronous: database.synchronous == .full ? .full : .normal,
                           backgroundCheckpointPages: database.checkpointPages == 0 ? nil : database.checkpointPages)
    }
}
