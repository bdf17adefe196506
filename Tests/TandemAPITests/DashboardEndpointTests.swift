import Foundation
import TandemCore
import TandemHTTP
import Testing
@testable import TandemAPI

/// `GET /dashboard`, its files and `GET /admin/metrics` (the browser test is Tests/integration/test_dashboard.py).
@Suite("Dashboard endpoint")
struct DashboardEndpointTests {
    static func get(_ endpoint: DashboardEndpoint, _ target: String, token: String? = nil) -> Response? {
        var router = HTTPRouter()
        endpoint.register(in: &router)
        var headers = HTTPHeaders()
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        var request = Request(method: .GET, target: target, headers: headers)
        guard case .matched(_, let handler, let parameters) = router.match(.GET, path: request.path),
              case .sync(let body) = handler else { return nil }
        request.pathParameters = parameters
        return body(request)
    }

    @Test("the page and each of its files are served with their type and a policy that allows nothing foreign")
    func files() throws {
        let endpoint = DashboardEndpoint(registry: MetricsRegistry(), adminToken: "admin")
        let page = try #require(Self.get(endpoint, "/dashboard"))
        #expect(page.status == .ok && page.headers["content-type"] == "text/html; charset=utf-8")
        let html = String(decoding: page.body, as: UTF8.self)
        for name in DashboardAssets.files.keys.sorted() {
            let file = try #require(Self.get(endpoint, "/dashboard/\(name)"))
            #expect(file.status == .ok, "\(name)")
            #expect(file.headers["content-type"] == DashboardAssets.files[name]?.contentType)
            #expect(file.headers["content-security-policy"]?.contains("script-src 'self'") == true)
            #expect(html.contains("/dashboard/\(name)"), "the page loads \(name)")
        }
        #expect(Self.get(endpoint, "/dashboard/other.js")?.status == .notFound)
        for text in [html] + DashboardAssets.files.values.map(\.body) {
            #expect(!text.contains("http://") || text.contains("http://www.w3.org/2000/svg"), "nothing fetched from elsewhere")
            #expect(!text.contains("https://"))
            #expect(!text.contains("innerHTML"), "server text is set as text, never parsed as HTML")
        }
    }

    @Test("/admin/metrics is the registry's text behind the admin or the dashboard token")
    func metrics() throws {
        let registry = MetricsRegistry()
        registry.counter("tandem_test_total", help: "A test counter.").increment(by: 3)
        let endpoint = DashboardEndpoint(registry: registry, adminToken: "admin", dashboardToken: "viewer")
        for token in ["admin", "viewer"] {
            let response = try #require(Self.get(endpoint, "/admin/metrics", token: token))
            #expect(response.status == .ok)
            #expect(response.headers["content-type"] == MetricsRegistry.contentType)
            #expect(String(decoding: response.body, as: UTF8.self).contains("tandem_test_total 3"))
        }
        #expect(Self.get(endpoint, "/admin/metrics")?.status == .unauthorized)
        #expect(Self.get(endpoint, "/admin/metrics", token: "wrong")?.headers["www-authenticate"] == #"Bearer realm="admin""#)
    }

    @Test("off without any token: every route is 403 and says how to turn it on")
    func off() throws {
        let endpoint = DashboardEndpoint(registry: MetricsRegistry(), adminToken: nil, dashboardToken: "")
        for target in ["/dashboard", "/dashboard/dashboard.js", "/dashboard/nope", "/admin/metrics"] {
            let response = try #require(Self.get(endpoint, target, token: ""))
            #expect(response.status == .forbidden, "\(target)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("TANDEM_ADMIN_TOKEN"))
        }
    }
}
