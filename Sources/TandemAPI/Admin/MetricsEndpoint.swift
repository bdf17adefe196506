import TandemCore
import TandemHTTP

/// `GET /metrics`: the registry in the Prometheus text exposition format 0.0.4.
///
/// With a bearer token configured, a request without `Authorization: Bearer <token>` gets 401 and a
/// `WWW-Authenticate` challenge; the comparison takes the same time wherever the tokens differ.
public struct MetricsEndpoint: Sendable {
    private let registry: MetricsRegistry
    private let bearerToken: String?

    public init(registry: MetricsRegistry, bearerToken: String?) {
        self.registry = registry
        self.bearerToken = bearerToken
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/metrics", .sync { request in self.respond(to: request) })
    }

    func respond(to request: Request) -> Response {
        if let bearerToken {
            let presented = request.headers["authorization"].flatMap(Self.bearer) ?? ""
            guard ConstantTime.equals(Array(presented.utf8), Array(bearerToken.utf8)) else {
                var response = Response.json(.unauthorized, #"{"error":"a valid bearer token is required"}"#)
                response.headers.add(name: "WWW-Authenticate", value: #"Bearer realm="metrics""#)
                return response
            }
        }
        var response = Response.text(.ok, registry.render())
        response.headers.set(name: "Content-Type", value: MetricsRegistry.contentType)
        return response
    }

    private static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingASCIISpaces()
    }
}
