import TandemCore
import TandemHTTP

/// The operator's dashboard in the browser: `GET /dashboard` (the page), `GET /dashboard/{file}` (its style
/// sheet and scripts) and `GET /admin/metrics` (the metrics registry in the Prometheus text format, behind the
/// admin token: what the page reads, whatever token `/metrics` itself asks for).
///
/// Off unless the admin token or the dashboard's read-only token (`dashboard.token`) is configured: without
/// either every route is 403. The page and its files are not secret and need no token (a browser cannot send
/// one when it navigates); the page asks for a token and sends it as `Authorization: Bearer` to
/// `/admin/metrics` and `/admin/messages`, which accept either token (the rest of the admin API only the admin's). Every answer carries a Content-Security-Policy that allows only this server's own
/// scripts, styles and requests, so the page can load nothing from elsewhere.
/// Not guaranteed: any particular look; the tiles show `—` for a metric this server does not have.
public struct DashboardEndpoint: Sendable {
    /// The 403 message when no admin token is configured.
    public static let disabledMessage = "the dashboard is off: set TANDEM_ADMIN_TOKEN, or configure dashboard.token"
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    private let registry: MetricsRegistry
    private let gate: AdminGate

    /// - Parameters:
    ///   - adminToken: the admin API's token.
    ///   - dashboardToken: the dashboard's read-only token (`dashboard.token`), accepted too.
    ///   With neither (nil or empty) the dashboard is off.
    public init(registry: MetricsRegistry, adminToken: String?, dashboardToken: String? = nil, logger: Logger = .discarding) {
        self.registry = registry
        self.gate = AdminGate(tokens: [adminToken, dashboardToken], logger: logger.with(["component": "admin"]))
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/dashboard", .sync { _ in self.file(contentType: "text/html; charset=utf-8", DashboardAssets.page) })
        router.add(.GET, "/dashboard/{file}", .sync { request in
            guard let name = request.pathParameters["file"], let file = DashboardAssets.files[name] else {
                return self.gate.isEnabled ? AdminFailure.notFound("no such dashboard file").response : self.off()
            }
            return self.file(contentType: file.contentType, file.body)
        })
        router.add(.GET, "/admin/metrics", .sync { request in
            if let refusal = self.gate.refusal(request) { return refusal }
            var response = Response.text(.ok, self.registry.render())
            response.headers.set(name: "Content-Type", value: MetricsRegistry.contentType)
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        })
    }

    private func file(contentType: String, _ body: String) -> Response {
        guard gate.isEnabled else { return off() }
        var response = Response.text(.ok, body)
        response.headers.set(name: "Content-Type", value: contentType)
        response.headers.add(name: "Cache-Control", value: "no-cache")
        response.headers.add(name: "Content-Security-Policy", value: Self.contentSecurityPolicy)
        response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.add(name: "Referrer-Policy", value: "no-referrer")
        return response
    }

    private func off() -> Response {
        AdminFailure(.forbidden, Self.disabledMessage).response
    }
}
