import TandemCore
import TandemHTTP

/// `GET /healthz`: whether this process can serve, for load balancers and orchestrators.
///
/// 200 `{"status":"ok","version":…,"uptimeSeconds":…,"database":"ok","writes":"ok"}` when a real read through
/// the store succeeds and its writes are not failing; 503 with `"status":"degraded"` and
/// `"database":"unavailable"` when the read fails, or `"writes":"failing","reason":…` while the store's last
/// write failed and none has committed since (a read-only file, a full disk). Not checked: the push
/// and SMS providers (an outage there degrades delivery, not the API).
public struct HealthEndpoint: Sendable {
    private let version: String
    private let uptimeSeconds: @Sendable () -> Double
    private let databaseIsReachable: @Sendable () -> Bool
    private let writeFailure: @Sendable () -> String?
    private let cluster: (@Sendable () -> ClusterHealth)?

    /// A cluster node's part of the answer: its name and the partitions whose leases it holds now.
    public struct ClusterHealth: Sendable {
        public let node: String
        public let partitions: [Int]
        public init(node: String, partitions: [Int]) {
            self.node = node
            self.partitions = partitions
        }
    }

    /// - Parameter writeFailure: why the store's last commit failed while none has succeeded since, else nil.
    public init(version: String = TandemVersion.current, uptimeSeconds: @escaping @Sendable () -> Double,
                databaseIsReachable: @escaping @Sendable () -> Bool, writeFailure: @escaping @Sendable () -> String? = { nil },
                cluster: (@Sendable () -> ClusterHealth)? = nil) {
        self.version = version
        self.cluster = cluster
        self.uptimeSeconds = uptimeSeconds
        self.databaseIsReachable = databaseIsReachable
        self.writeFailure = writeFailure
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/healthz", .sync { _ in self.respond() })
    }

    func respond() -> Response {
        let databaseOK = databaseIsReachable()
        let failure = writeFailure()
        let healthy = databaseOK && failure == nil
        let uptime = (uptimeSeconds() * 1_000).rounded() / 1_000
        var body = "{\"status\":\(healthy ? "\"ok\"" : "\"degraded\""),\"version\":"
        JSONText.appendString(version, to: &body)
        body += ",\"uptimeSeconds\":\(uptime),\"database\":\(databaseOK ? "\"ok\"" : "\"unavailable\"")"
        body += ",\"writes\":\(failure == nil ? "\"ok\"" : "\"failing\"")"
        if let failure {
            body += ",\"reason\":"
            JSONText.appendString("the last write to the database failed and none has succeeded since: \(failure)", to: &body)
        }
        if let cluster = cluster?() {
            // A node holding no partition yet still serves: it accepts nothing new but forwards and answers reads.
            body += ",\"cluster\":{\"node\":"
            JSONText.appendString(cluster.node, to: &body)
            body += ",\"partitions\":\(cluster.partitions.count),\"held\":[\(cluster.partitions.map(String.init).joined(separator: ","))]}"
        }
        body += "}"
        var response = Response.json(healthy ? .ok : .serviceUnavailable, body)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }
}
