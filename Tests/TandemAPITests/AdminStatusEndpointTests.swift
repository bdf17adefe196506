import Foundation
import Testing
import TandemCore
import TandemHTTP
@testable import TandemAPI

@Suite("Admin status endpoint")
struct AdminStatusEndpointTests {
    let apps = AdminAppsEndpointTests()

    func send(token: String?, authorization: String?, snapshot: AdminStatusEndpoint.Snapshot) async throws -> Response {
        let admin = apps.endpoint(InMemoryAppRegistry(), token: token)
        var router = HTTPRouter()
        AdminStatusEndpoint(admin: admin) { snapshot }.register(in: &router)
        guard case .matched(_, let handler, let parameters) = router.match(.GET, path: "/admin/status"),
              case .async(let respond) = handler else {
            Issue.record("GET /admin/status is not an async route")
            return Response.json(.notFound, "{}")
        }
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        return await respond(Request(method: .GET, target: "/admin/status", headers: headers, body: [], pathParameters: parameters))
    }

    @Test("answers the figures, with smpp null when SMS does not go over SMPP")
    func figures() async throws {
        let snapshot = AdminStatusEndpoint.Snapshot(version: "9.8.7", uptimeSeconds: 12.34567, providers: "push=simulator sms=smpp voice=simulator",
                                                    deliveriesInFlight: 3, timersPending: 5, spoolRecipientsQueued: 7,
                                                    smpp: (binds: 2, bindsUp: 1))
        let response = try await send(token: AdminAppsEndpointTests.token, authorization: "Bearer " + AdminAppsEndpointTests.token,
                                      snapshot: snapshot)
        #expect(response.status == .ok)
        #expect(response.headers["cache-control"] == "no-store")
        #expect(String(decoding: response.body, as: UTF8.self) == """
            {"version":"9.8.7","uptimeSeconds":12.346,"providers":"push=simulator sms=smpp voice=simulator",\
            "deliveriesInFlight":3,"timersPending":5,"spoolRecipientsQueued":7,"smpp":{"binds":2,"bindsUp":1}}
            """)
        var simulated = snapshot
        simulated.smpp = nil
        simulated.spoolRecipientsQueued = nil
        let other = try await send(token: AdminAppsEndpointTests.token, authorization: "Bearer " + AdminAppsEndpointTests.token,
                                   snapshot: simulated)
        #expect(String(decoding: other.body, as: UTF8.self).hasSuffix(#""spoolRecipientsQueued":null,"smpp":null}"#))
    }

    @Test("is guarded like the other admin routes: 401 with a wrong token, 403 while the API is off")
    func guarded() async throws {
        let snapshot = AdminStatusEndpoint.Snapshot(uptimeSeconds: 1, providers: "", deliveriesInFlight: 0, timersPending: 0,
                                                    spoolRecipientsQueued: 0, smpp: nil)
        let wrong = try await send(token: AdminAppsEndpointTests.token, authorization: "Bearer nope", snapshot: snapshot)
        #expect(wrong.status == .unauthorized)
        #expect(wrong.headers["www-authenticate"] == #"Bearer realm="admin""#)
        let off = try await send(token: nil, authorization: "Bearer x", snapshot: snapshot)
        #expect(off.status == .forbidden)
    }
}
