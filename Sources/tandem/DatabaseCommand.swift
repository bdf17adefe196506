import Foundation
import TandemCore
import TandemPostgres
import TandemStore

/// `tandem db copy --from PATH --to URL`: moves a SQLite store into an empty PostgreSQL database, for an operator
/// who outgrew one machine (see docs/postgresql.md, "Moving from SQLite").
///
/// Guaranteed: the target holds all of the source or nothing (one transaction); the source is not changed
/// beyond migrating it to this build's schema; neither database can be in use by a server meanwhile (the copy
/// takes both serving locks, so a running server on either makes it stop with the holder named).
struct DatabaseCommand {
    static let usage = """
        usage: tandem db copy --from PATH --to URL [--password-env NAME]

        copy   Copies everything a stopped server's SQLite database holds (accounts, apps, registrations,
               messages, deliveries in flight with their timers, events, status reports waiting in the outbox,
               every API's tables) into the empty PostgreSQL database URL names, in one transaction. Start the
               server on PostgreSQL afterwards (database.url): it recovers the copied deliveries as after a
               restart, and their fallbacks fire at their original deadlines.
               --password-env NAME names the environment variable that holds the PostgreSQL password (never
               put it in the URL).

        """

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: ["from", "to", "password-env"], usage: Self.usage) else { return }
        guard parsed.positional == ["copy"] else { throw CommandFailure(.usage, Self.usage) }
        guard let source = parsed.option("from"), !source.isEmpty, let url = parsed.option("to"), !url.isEmpty else {
            throw CommandFailure(.usage, "both --from PATH and --to URL are required\n\(Self.usage)")
        }
        if let problem = Configuration.Database.problem(url: url) ?? PGConnectionTarget.problem(in: url) {
            throw CommandFailure(.usage, "--to: \(problem)")
        }
        var password: String?
        if let name = parsed.option("password-env") {
            guard let value = environment[name], !value.isEmpty else {
                throw CommandFailure(.usage, "--password-env: environment variable \(name) is not set")
            }
            password = value
        }
        guard FileManager.default.fileExists(atPath: source) else {
            throw CommandFailure(.dataError, "--from: no SQLite database at \(source)")
        }
        let report = try await Self.copy(from: source, to: PGConnectionTarget(url, password: password, applicationName: "tandem db copy"))
        var text = "copied into \(url):\n"
        for table in PGDatabaseCopy.tableOrder {
            guard let rows = report.tables[table] else { continue }
            text += "  \(table.padding(toLength: 28, withPad: " ", startingAt: 0)) \(rows)\n"
        }
        text += "  total rows: \(report.tables.values.reduce(0, +))\n"
        ProcessIO.writeOutput(text)
    }

    private static func copy(from source: String, to target: PGConnectionTarget) async throws(CommandFailure) -> PGDatabaseCopy.Report {
        let sourceLock: ServerLock
        do {
            sourceLock = try ServerLock(databasePath: source)
        } catch {
            throw CommandFailure(.failure, "cannot copy from \(source): \(error)")
        }
        defer { withExtendedLifetime(sourceLock) {} }
        let targetLock: PGServingLock
        do {
            targetLock = try await PGServingLock.take(target)
        } catch {
            throw CommandFailure(.failure, "cannot copy to the PostgreSQL database: \(error)")
        }
        defer { targetLock.release() }
        // Brings the source to this build's schema (what the copy reads), then closes it.
        let migrated: Store
        do {
            migrated = try Store.open(StoreConfiguration(path: source))
        } catch {
            throw CommandFailure(.failure, "cannot open \(source): \(error)")
        }
        await migrated.close()
        // libpq and SQLite block: the copy runs on a thread of its own.
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<PGDatabaseCopy.Report, CommandFailure>, Never>) in
            Thread {
                continuation.resume(returning: Result { () throws(CommandFailure) -> PGDatabaseCopy.Report in
                    do {
                        let reader = try Connection(path: source, options: ConnectionOptions(readOnly: true))
                        let connection = try PGConnection(target)
                        defer { connection.close() }
                        let export = SQLiteTableExport(connection: reader)
                        try export.begin()
                        defer { export.end() }
                        return try PGDatabaseCopy.copy(from: export, to: connection)
                    } catch {
                        throw CommandFailure(.failure, "copy failed, nothing was written to the PostgreSQL database: \(error)")
                    }
                })
            }.start()
        }
        return try result.get()
    }
}
