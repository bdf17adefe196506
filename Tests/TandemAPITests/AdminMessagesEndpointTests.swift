import Foundation
import TandemCore
import TandemHTTP
import TandemStore
import TandemTestSupport
import Testing
@testable import TandemAPI

/// `GET /admin/messages` on a real store: search across accounts by id, reference and number.
@Suite("Admin message search")
struct AdminMessagesEndpointTests {
    static let token = "admin-secret"

    static func get(_ endpoint: AdminMessagesEndpoint, _ target: String, token: String? = AdminMessagesEndpointTests.token) async -> Response? {
        var router = HTTPRouter()
        endpoint.register(in: &router)
        var headers = HTTPHeaders()
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        let request = Request(method: .GET, target: target, headers: headers)
        guard case .matched(_, let handler, _) = router.match(.GET, path: request.path), case .async(let body) = handler else { return nil }
        return await body(request)
    }

    static func document(_ response: Response?) throws -> [String: Any] {
        let response = try #require(response)
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    static func messages(_ response: Response?) throws -> [[String: Any]] {
        try #require(try document(response)["messages"] as? [[String: Any]])
    }

    static func send(_ h: GatewayHarness, _ account: Account, to numbers: [String], extra: String) async throws -> String {
        let reply = await h.submitJSON(GatewayHarness.request(token: account.productToken, CMGatewayServiceTests.msg(to: numbers, extra: extra)))
        return try #require(reply.lines.first?["messageId"] as? String)
    }

    @Test("finds messages of every account by reference, newest first, with masked numbers and no body")
    func byReference() async throws {
        let h = try await GatewayHarness()
        let first = try await Self.send(h, h.accountA, to: ["0031612345678"], extra: #""reference":"shared""#)
        let second = try await Self.send(h, h.accountB, to: ["0031612345679"], extra: #""reference":"shared""#)
        let endpoint = AdminMessagesEndpoint(search: h.store, adminToken: Self.token)
        let response = await Self.get(endpoint, "/admin/messages?reference=shared")
        #expect(response?.status == .ok)
        #expect(response?.headers["cache-control"] == "no-store")
        let found = try Self.messages(response)
        #expect(found.map { $0["id"] as? String } == [second, first])
        #expect(found.map { $0["account"] as? String } == ["B", "A"])
        let text = String(decoding: try #require(response).body, as: UTF8.self)
        #expect(text.contains("+3161****678") && !text.contains("31612345678") && !text.contains("Hello"))
        #expect(try Self.document(response)["query"] as? [String: String] == ["by": "reference", "value": "shared"])
        await h.close()
    }

    @Test("a search by number shows only that number's recipients; by id every recipient and the count")
    func byNumberAndID() async throws {
        let h = try await GatewayHarness()
        let id = try await Self.send(h, h.accountA, to: ["0031612345601", "0031612345602", "0031612345603"], extra: #""reference":"bulk""#)
        let endpoint = AdminMessagesEndpoint(search: h.store, adminToken: Self.token)
        let byNumber = try await Self.messages(Self.get(endpoint, "/admin/messages?msisdn=%2B31612345602"))
        #expect(byNumber.map { $0["id"] as? String } == [id])
        let recipients = try #require(byNumber.first?["recipients"] as? [[String: Any]])
        #expect(recipients.map { $0["to"] as? String } == ["+3161****602"])
        await #expect(try Self.document(Self.get(endpoint, "/admin/messages?msisdn=0031612345602"))["query"] as? [String: String]
                == ["by": "msisdn", "value": "+3161****602"])
        let byID = try await #require(try Self.messages(Self.get(endpoint, "/admin/messages?id=\(id)")).first)
        #expect((byID["recipients"] as? [[String: Any]])?.count == 3)
        #expect(byID["recipientCount"] as? Int == 3)
        await #expect(try Self.messages(Self.get(endpoint, "/admin/messages?msisdn=%2B31699999999")).isEmpty)
        await h.close()
    }

    @Test("a Critical push carries its timeline and the policy's deadlines")
    func deadlines() async throws {
        let h = try await GatewayHarness()
        try await h.verifiedDevice(h.appB, msisdn: "+31612345610")
        let id = try await Self.send(h, h.accountB, to: ["0031612345610"], extra: "\"appKey\":\"\(h.appB.key.text)\"")
        #expect(await eventually { h.push.sent.count == 1 })
        let endpoint = AdminMessagesEndpoint(search: h.store, adminToken: Self.token)
        let message = try await #require(try Self.messages(Self.get(endpoint, "/admin/messages?id=\(id)")).first)
        let recipient = try #require((message["recipients"] as? [[String: Any]])?.first)
        let events = try #require(recipient["events"] as? [[String: Any]])
        #expect(events.first?["event"] as? String == "routed")
        let routed = try #require(events.first?["ms"] as? Int)
        let deadlines = try #require(recipient["deadlines"] as? [[String: Any]])
        #expect(deadlines.map { $0["timer"] as? String } == ["noDeliveryAck", "noRead"])
        #expect(deadlines.map { $0["ms"] as? Int } == [routed + 30_000, routed + 30_000])
        #expect(deadlines.map { $0["armed"] as? Bool } == [true, true])
        await h.close()
    }

    @Test("refuses without the token, is off without one configured, and names what is wrong with a search")
    func refusals() async throws {
        let h = try await GatewayHarness()
        let endpoint = AdminMessagesEndpoint(search: h.store, adminToken: Self.token)
        await #expect(Self.get(endpoint, "/admin/messages?reference=x", token: nil)?.status == .unauthorized)
        await #expect(Self.get(endpoint, "/admin/messages?reference=x", token: "wrong")?.status == .unauthorized)
        await #expect(Self.get(AdminMessagesEndpoint(search: h.store, adminToken: nil), "/admin/messages?reference=x")?.status == .forbidden)
        let both = AdminMessagesEndpoint(search: h.store, adminToken: Self.token, dashboardToken: "read-only")
        await #expect(Self.get(both, "/admin/messages?reference=x", token: "read-only")?.status == .ok)
        await #expect(Self.get(both, "/admin/messages?reference=x")?.status == .ok)
        let dashboardOnly = AdminMessagesEndpoint(search: h.store, adminToken: nil, dashboardToken: "read-only")
        await #expect(Self.get(dashboardOnly, "/admin/messages?reference=x", token: "read-only")?.status == .ok)
        await #expect(Self.get(dashboardOnly, "/admin/messages?reference=x")?.status == .unauthorized)
        for (target, words) in [("/admin/messages", "exactly one"), ("/admin/messages?id=1&reference=2", "exactly one"),
                                ("/admin/messages?id=nope", "GUID"), ("/admin/messages?msisdn=612345678", "international"),
                                ("/admin/messages?to=1", "unknown parameter"),
                                ("/admin/messages?reference=" + String(repeating: "r", count: 129), "1 to 128")] {
            let response = await Self.get(endpoint, target)
            #expect(response?.status == .badRequest, "\(target)")
            #expect((try Self.document(response)["error"] as? String)?.contains(words) == true, "\(target)")
        }
        await h.close()
    }
}
