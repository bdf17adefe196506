import TandemCore
import TandemStore

/// Opens the store a configuration names, for the administration commands.
enum StoreOpener {
    static func open(configPath: String?, environment: [String: String]) throws(CommandFailure) -> Store {
        let path = ConfigurationLoader.path(option: configPath, environment: environment)
        let configuration = try ConfigurationLoader.configuration(at: path, environment: environment)
        return try open(configuration.database)
    }

    static func open(_ database: Configuration.Database) throws(CommandFailure) -> Store {
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
