import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory, the server listening
/// only on a Unix socket in that directory (no TCP port to collide with), started once per test process
/// and stopped — directory removed — when the process exits. Debian keeps the binaries in
/// `/usr/lib/postgresql/<major>/bin`; PostgreSQL refuses to run as root, so as root they run as the
/// `postgres` user the package creates (`runuser`), in a directory that user owns.
public final class PostgresCluster: Sendable {
    /// The shared cluster, started on first use — on a thread of its own (``offPool(_:)``): `initdb` and
    /// `pg_ctl start` take seconds, and a test blocking a thread of the cooperative pool (two on a two-core
    /// machine) starves every other test of the process meanwhile.
    public static func shared() async throws -> PostgresCluster {
        try await starting.value
    }

    private static let starting = Task<PostgresCluster, any Error> {
        let cluster = try await offPool { try PostgresCluster() }
        started.withLock { $0 = cluster }
        atexit { PostgresCluster.stopShared() }
        return cluster
    }

    private static let started = Mutex<PostgresCluster?>(nil)

    private static func stopShared() {
        started.withLock { $0?.stop(); $0 = nil }
    }

    public let directory: String
    private let bin: String

    /// The libpq connection string of `database` (created on demand with ``createDatabase(_:)``).
    public func conninfo(_ database: String = "postgres") -> String {
        "host=\(directory) port=5432 user=tandem dbname=\(database) connect_timeout=5"
    }

    private init() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let major = versions.compactMap(Int.init).max() else {
            throw ClusterError("PostgreSQL is not installed (no /usr/lib/postgresql/<major>/bin); make test installs it")
        }
        bin = "/usr/lib/postgresql/\(major)/bin"
        directory = NSTemporaryDirectory() + "tandem-pg-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        if getuid() == 0 { try Self.run("/bin/chown", ["postgres:postgres", directory], asPostgres: false) }
        do {
            try Self.run(bin + "/initdb", ["-D", directory + "/data", "-U", "tandem", "--auth=trust", "-E", "UTF8", "--no-locale",
                                      "--no-sync"])
            try Self.run(bin + "/pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "start",
                                      "-o", "-k \(directory) -c listen_addresses='' -c fsync=off -c max_connections=1000"])
        } catch {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: directory)
            throw ClusterError("\(error)\n\(log)")
        }
    }

    /// Creates a database of its own for one test, named `prefix` and a random suffix; returns its connection string.
    public func freshDatabase(_ prefix: String) async throws -> String {
        let name = prefix + "_" + UUID().uuidString.prefix(8).lowercased()
        try await createDatabase(name)
        return conninfo(name)
    }

    /// Creates a fresh database for one test (`createdb`, off the cooperative pool).
    public func createDatabase(_ name: String) async throws {
        let (bin, directory) = (bin, directory)
        try await offPool { try Self.run(bin + "/createdb", ["-h", directory, "-p", "5432", "-U", "tandem", name]) }
    }

    func stop() {
        try? Self.run(bin + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a program to its end, as the `postgres` user when this process is root. Output goes to a file, not
    /// a pipe: `pg_ctl start` leaves a daemon behind holding what it inherited, so a pipe would never end.
    private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool = true) throws {
        let argv = asPostgres && getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments
                                               : [executable] + arguments
        let outputPath = NSTemporaryDirectory() + "tandem-pg-output-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let status = try ChildProcess(argv, output: .file(outputPath), errors: .standardOutput).wait()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == .exited(0) else {
            throw ClusterError("\(argv.joined(separator: " ")) failed (\(status)): \(text)")
        }
    }
}

struct ClusterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking work (a process spawned and waited for, a blocking connect) on a thread of its own and
/// resumes the caller with its result, so that no thread of the cooperative pool waits meanwhile.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
