import Foundation
import Synchronization
import Testing
import TandemCore
import TandemHTTP
@testable import TandemAPI

@Suite("Admin endpoints")
struct AdminEndpointTests {
    private func routed(_ register: (inout HTTPRouter) -> Void, _ method: HTTPMethod, _ target: String,
                        headers: HTTPHeaders = HTTPHeaders()) -> Response? {
        var router = HTTPRouter()
        register(&router)
        let request = Request(method: method, target: target, headers: headers)
        guard case .matched(_, let handler, _) = router.match(method, path: request.path) else { return nil }
        guard case .sync(let body) = handler else { return nil }
        return body(request)
    }

    private func json(_ response: Response) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? NSDictionary)
    }

    @Test("healthz is 200 with version, uptime and database ok when the store answers")
    func healthy() throws {
        let endpoint = HealthEndpoint(version: "9.9.9", uptimeSeconds: { 12.3456 }, databaseIsReachable: { true })
        let response = try #require(routed(endpoint.register, .GET, "/healthz"))
        #expect(response.status == .ok)
        #expect(response.headers["content-type"] == "application/json")
        let document = try json(response)
        #expect(document["status"] as? String == "ok")
        #expect(document["version"] as? String == "9.9.9")
        #expect(document["uptimeSeconds"] as? Double == 12.346)
        #expect(document["database"] as? String == "ok")
        #expect(document["writes"] as? String == "ok")
        #expect(document["reason"] == nil)
    }

    @Test("healthz is 503 and says which part is down when the store does not answer")
    func degraded() throws {
        let endpoint = HealthEndpoint(uptimeSeconds: { 1 }, databaseIsReachable: { false })
        let response = try #require(routed(endpoint.register, .GET, "/healthz"))
        #expect(response.status == .serviceUnavailable)
        let document = try json(response)
        #expect(document["status"] as? String == "degraded")
        #expect(document["database"] as? String == "unavailable")
    }

    @Test("healthz is 503 with the reason while the store's writes fail, though reads still work")
    func writesFailing() throws {
        let endpoint = HealthEndpoint(uptimeSeconds: { 1 }, databaseIsReachable: { true },
                                      writeFailure: { "SQLite error (13): database or disk is full" })
        let response = try #require(routed(endpoint.register, .GET, "/healthz"))
        #expect(response.status == .serviceUnavailable)
        let document = try json(response)
        #expect(document["status"] as? String == "degraded")
        #expect(document["database"] as? String == "ok")
        #expect(document["writes"] as? String == "failing")
        #expect((document["reason"] as? String)?.hasSuffix("database or disk is full") == true)
    }

    @Test("metrics render the registry with the 0.0.4 content type")
    func metricsOpen() throws {
        let registry = MetricsRegistry()
        let metrics = HTTPMetrics(registry: registry)
        metrics.record(AccessRecord(method: "GET", route: "/healthz", target: "/healthz", status: 200, durationSeconds: 0.0004,
                                    requestBytes: 0, responseBytes: 10, remoteAddress: "127.0.0.1"))
        // Each series counts its own requests (label arrays are built once per method, route and status).
        for (method, status) in [("POST", 400), ("POST", 202), ("POST", 400)] {
            metrics.record(AccessRecord(method: method, route: "/v1.0/message", target: "/v1.0/message", status: status,
                                        durationSeconds: 0.002, requestBytes: 10, responseBytes: 10, remoteAddress: nil))
        }
        let endpoint = MetricsEndpoint(registry: registry, bearerToken: nil)
        let response = try #require(routed(endpoint.register, .GET, "/metrics"))
        #expect(response.status == .ok)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains(#"tandem_http_requests_total{method="GET",route="/healthz",status="200"} 1"#))
        #expect(text.contains(#"tandem_http_request_duration_seconds_bucket{route="/healthz",le="0.0005"} 1"#))
        #expect(text.contains(#"tandem_http_request_duration_seconds_bucket{route="/healthz",le="0.00025"} 0"#))
        #expect(text.contains(#"tandem_http_requests_total{method="POST",route="/v1.0/message",status="400"} 2"#))
        #expect(text.contains(#"tandem_http_requests_total{method="POST",route="/v1.0/message",status="202"} 1"#))
        #expect(text.contains(#"tandem_http_request_duration_seconds_count{route="/v1.0/message"} 3"#))
    }

    @Test("metrics behind a bearer token refuse missing and wrong tokens with a challenge",
          arguments: [nil, "Bearer nope", "Basic c2VzYW1l", "Bearer sesame2", "Bearer "])
    func metricsRefused(authorization: String?) throws {
        let endpoint = MetricsEndpoint(registry: MetricsRegistry(), bearerToken: "sesame")
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        let response = try #require(routed(endpoint.register, .GET, "/metrics", headers: headers))
        #expect(response.status == .unauthorized)
        #expect(response.headers["www-authenticate"] == #"Bearer realm="metrics""#)
    }

    @Test("metrics behind a bearer token accept the right one, in any scheme casing")
    func metricsAccepted() throws {
        let endpoint = MetricsEndpoint(registry: MetricsRegistry(), bearerToken: "sesame")
        for value in ["Bearer sesame", "bearer sesame"] {
            let response = try #require(routed(endpoint.register, .GET, "/metrics", headers: ["Authorization": value]))
            #expect(response.status == .ok)
        }
    }

    @Test("constant-time comparison compares content and length")
    func constantTime() {
        #expect(ConstantTime.equals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equals(Array("abd".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equals(Array("ab".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equals(Array("abcd".utf8), Array("abc".utf8)))
        #expect(!ConstantTime.equals(Array(repeating: 0, count: 256), []))
        #expect(ConstantTime.equals([], []))
    }
}
