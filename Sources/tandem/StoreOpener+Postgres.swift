import TandemCore

extension StoreOpener {
    static func openPostgres(_ database: Configuration.Database) async throws(CommandFailure) -> any TandemDatabase {
        throw CommandFailure(.configuration, "database.url: PostgreSQL is not served by this build yet")
    }

    static func openPostgresForServing(_ database: Configuration.Database, logger: Logger) async throws(CommandFailure) -> Serving {
        throw CommandFailure(.configuration, "database.url: PostgreSQL is not served by this build yet")
    }
}
