import Foundation

/// Everything `tandem serve` needs to start, from `Config/tandem.json` (or `TANDEM_CONFIG`), validated at once.
///
/// Every key has a default, so a file may name only what it changes; unknown keys are errors. Relative paths
/// in the file, and the defaults of those it leaves out, count from the file's directory (see `load`).
/// Secrets never appear in the file: it names environment variables.
public struct Configuration: Sendable, Hashable {
    /// Where the HTTP server listens.
    public var listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080)
    public var http = HTTP()
    public var database = Database()
    /// The directory holding `default.json`, `otp.json` and `critical.json`.
    public var policies = "Policies"
    public var providers = Providers.simulator
    public var metrics = Metrics()
    public var dashboard = Dashboard()
    public var log = Log()
    public var scheduler = SchedulerSettings()
    public var gateway = Gateway()
    public var statusReports = StatusReports()
    public var simulator = Simulator()
    public var deviceAPI = DeviceAPI()
    public var mymsp = MyMSP()
    /// Set: this server is one node of several on one PostgreSQL database (docs/cluster.md).
    public var cluster: Cluster?
    /// Every path-valued key the file gave, as written and as resolved (`load` fills it in).
    public internal(set) var paths: [ConfiguredPath] = []

    public init() {}

    public struct HTTP: Sendable, Hashable {
        /// libmicrohttpd's internal thread pool.
        public var threads = 4
        public var maxBodyBytes = 8 * 1024 * 1024
        /// The whole request header block; larger requests get 431. With `maxURLBytes` it sizes each connection's
        /// memory, which libmicrohttpd zeroes after every request (see `HTTPServer.Configuration.connectionMemoryLimit`).
        public var maxHeaderBytes = 8 * 1024
        /// The request-target; longer ones get 414.
        public var maxURLBytes = 4 * 1024
        /// An idle or stalled connection is closed after this long.
        public var connectionTimeout: Duration = .seconds(30)
        public var maxConnections = 4_096
        /// Connections one client address may hold (0: no limit); see `HTTPServer.Configuration`.
        public var maxConnectionsPerAddress = 512
        /// Request-body bytes all connections together may hold in memory; beyond it 503 with `Retry-After`.
        public var maxBufferedBodyBytes = 256 * 1024 * 1024
        /// On SIGTERM/SIGINT, how long in-flight requests may take to finish.
        public var shutdownGrace: Duration = .seconds(30)
        /// How the server's threads wait for socket events.
        public var eventLoop: EventLoop = .epoll
        public init() {}
    }

    /// `epoll` scales to many idle keep-alive connections; `poll` notices a client that disconnects in the
    /// middle of a request body at once (with epoll, libmicrohttpd 0.9.75 notices only at the connection timeout).
    public enum EventLoop: String, Sendable, Hashable, CaseIterable {
        case epoll
        case poll
    }

    public struct Database: Sendable, Hashable {
        public var path = "data/tandem.sqlite"
        /// A PostgreSQL database instead of the SQLite file at ``path``: a libpq URI (`postgres://user@host:port/db`,
        /// `postgresql:///db?host=/run/postgresql`), never with a password in it.
        public var url: String?
        /// The PostgreSQL password, from the environment (`{"env": "NAME"}`); none: libpq's own ways (a
        /// `~/.pgpass` file, `PGPASSWORD`, or an authentication that needs none).
        public var password: SecretReference?
        /// How long `tandem serve` waits for a PostgreSQL server that does not answer yet (starting up, or
        /// not reachable) before it gives up.
        public var connectTimeout: Duration = .seconds(30)
        /// Read-only connections beside the single writer.
        public var readers = 4
        public var busyTimeout: Duration = .seconds(5)
        /// A group-commit transaction closes after this long at most…
        public var commitWindow: Duration = .milliseconds(2)
        /// …or after this many writes, whichever comes first (and at once when no more writes wait).
        public var commitMaxWrites = 512
        public var synchronous: Synchronous = .normal
        /// Copy the write-ahead log into the database on a thread of its own once this many pages wait to be
        /// copied, never inside a commit; 0: inside the commit that takes the log past 1,000 pages (SQLite's
        /// `wal_autocheckpoint`), stalling that commit's callers.
        public var checkpointPages = 1_000
        public init() {}
    }

    /// SQLite's `synchronous` in WAL mode.
    public enum Synchronous: String, Sendable, Hashable, CaseIterable {
        /// A commit survives the process being killed (`kill -9`); the last commits may be lost on power loss.
        case normal
        /// A commit also survives power loss: every commit waits for an fsync.
        case full
    }

    public struct Metrics: Sendable, Hashable {
        /// When set, `GET /metrics` requires `Authorization: Bearer <token>`.
        public var bearerToken: SecretReference?
        public init() {}
    }

    public struct Log: Sendable, Hashable {
        public var level: LogLevel = .info
        /// JSON lines (for collectors), or one readable line per event (for terminals).
        public var format: LogFormat = .json
        /// One JSON line per HTTP request.
        public var accessLog = true
        public init() {}
    }
}

/// `host:port`, with IPv6 hosts in brackets (`[::1]:8080`). Port 0 asks the system for a free port.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public init?(_ text: String) {
        let text = text.trimmingASCIISpaces()
        let hostPart: Substring, portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard !hostPart.isEmpty, !hostPart.contains(" "), let port = UInt16(portPart) else { return nil }
        self.host = String(hostPart)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A secret named by the environment variable that holds it (`{"env": "TANDEM_METRICS_TOKEN"}`).
/// The value is filled in by `Configuration.load` and never printed.
public struct SecretReference: Sendable, Hashable, CustomStringConvertible {
    public let environmentVariable: String
    public internal(set) var value: String

    public init(environmentVariable: String, value: String) {
        self.environmentVariable = environmentVariable
        self.value = value
    }

    public var description: String { "$\(environmentVariable)" }
}
