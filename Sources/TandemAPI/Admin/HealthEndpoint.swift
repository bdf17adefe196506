import TandemCore
import TandemHTTP

/// `GET /healthz`: whether this process can serve, for load balancers and orchestrators.
///
/// 200 `{"status":"ok","version":…,"uptimeSeconds":…,"database":"ok"}` when a real read through the store
/// succeeds; 503 with `"status":"degraded","database":"unavailable"` when it does not. Not checked: the push
/// and SMS providers (an outage there degrades delivery, not the API).
public struct HealthEndpoint: Sendable {
    private let version: String
    private let uptimeSeconds: @Sendable () -> Double
    private let databaseIsReachable: @Sendable () -> Bool

    public init(version: String = TandemVersion.current, uptimeSeconds: @escaping @Sendable () -> Double,
                databaseIsReachable: @escaping @Sendable () -> Bool) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.databaseIsReachable = databaseIsReachable
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/healthz", .sync { _ in self.respond() })
    }

    func respond() -> Response {
        let databaseOK = databaseIsReachable()
        let uptime = (uptimeSeconds() * 1_000).rounded() / 1_000
        var body = "{\"status\":\(databaseOK ? "\"ok\"" : "\"degraded\""),\"version\":"
        JSONText.appendString(version, to: &body)
        body += ",\"uptimeSeconds\":\(uptime),\"database\":\(databaseOK ? "\"ok\"" : "\"unavailable\"")}"
        var response = Response.json(databaseOK ? .ok : .serviceUnavailable, body)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }
}
