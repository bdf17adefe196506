import Foundation
import TandemCore
import TandemEngine
import TandemStore
import TandemTestSupport
import Testing
@testable import TandemAPI

@Suite("CM gateway service")
struct CMGatewayServiceTests {
    static func msg(to numbers: [String], from: String = "Tandem", body: String = "Hello", extra: String = "") -> String {
        let to = numbers.map { "{\"number\":\"\($0)\"}" }.joined(separator: ",")
        return "{\"from\":\"\(from)\",\"to\":[\(to)],\"body\":{\"content\":\"\(body)\"}\(extra.isEmpty ? "" : "," + extra)}"
    }

    @Test("a single recipient without an app is accepted, stored with every field, and sent by SMS")
    func acceptsAndStores() async throws {
        let h = try await GatewayHarness()
        let request = GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031612345678"], body: "Code 1234",
            extra: #""reference":"order-1","customGrouping":"g1","customGrouping3":"g3","dcs":8,"validity":"2h","richContent":{"a":1}"#))
        let reply = await h.submitJSON(request)
        #expect(reply.status == 200)
        #expect(reply.json["errorCode"] as? Int == 0)
        #expect(reply.json["details"] as? String == "Created 1 message(s)")
        let line = try #require(reply.lines.first)
        #expect(line["to"] as? String == "0031612345678")
        #expect(line["status"] as? String == "Accepted")
        #expect(line["reference"] as? String == "order-1")
        #expect(line["parts"] as? Int == 1)
        let messageID = try #require(line["messageId"] as? String)

        let stored = try h.rows("""
            SELECT m.message_id, m.reference, m.custom_grouping, m.custom_grouping2, m.custom_grouping3, m.dcs,
                   m.validity_until, m.rich_content, m.message_type, a.name, d.msisdn
            FROM messages m JOIN accounts a ON a.id = m.account_id JOIN deliveries d ON d.message_id = m.id
            """)
        #expect(stored == [[.text(messageID), .text("order-1"), .text("g1"), .null, .text("g3"), .integer(8),
                            .integer(GatewayHarness.t0.milliseconds + 7_200_000), .text(#"{"a":1}"#), .text("Default"),
                            .text("A"), .text("+31612345678")]])
        #expect(await eventually { h.sms.sent.count == 1 })
        #expect(h.sms.sent.first?.content.body == "Code 1234")
        #expect(h.sms.sent.first?.validity == .seconds(7_200))
        await h.close()
    }

    @Test("authentication: missing, malformed, unknown and header tokens")
    func authentication() async throws {
        let h = try await GatewayHarness()
        let body = Self.msg(to: ["0031612345678"])
        let missing = await h.submitJSON(#"{"messages":{"msg":[\#(body)]}}"#)
        #expect(missing.status == 400 && missing.json["errorCode"] as? Int == 101)
        let malformed = await h.submitJSON(#"{"messages":{"authentication":{"producttoken":"nope"},"msg":[\#(body)]}}"#)
        #expect(malformed.status == 400 && malformed.json["errorCode"] as? Int == 103)
        var generator = SystemRandomNumberGenerator()
        let unknown = await h.submitJSON(GatewayHarness.request(token: .random(using: &generator), body))
        #expect(unknown.status == 400 && unknown.json["errorCode"] as? Int == 101)
        let header = await h.submitJSON(#"{"messages":{"msg":[\#(body)]}}"#, headerToken: h.accountA.productToken.text)
        #expect(header.status == 200 && header.json["errorCode"] as? Int == 0)
        #expect(try h.count("SELECT count(*) FROM deliveries") == 1)
        await h.close()
    }

    @Test("a partly bad request: 200 with errorCode 201 and per-recipient codes; only the good part is stored")
    func partialFailure() async throws {
        let h = try await GatewayHarness()
        let reply = await h.submitJSON(GatewayHarness.request(
            token: h.accountA.productToken,
            Self.msg(to: ["0031612345678", "12345"]),
            Self.msg(to: ["0031612345679"], from: "")))
        #expect(reply.status == 200)
        #expect(reply.json["errorCode"] as? Int == 201)
        #expect(reply.lines.map { $0["status"] as? String } == ["Accepted", "Rejected", "Rejected"])
        #expect(reply.lines.map { $0["messageErrorCode"] as? Int } == [0, 303, 301])
        #expect(try h.count("SELECT count(*) FROM deliveries") == 1)
        #expect(try h.count("SELECT count(*) FROM messages") == 1)
        await h.close()
    }

    @Test("tenant isolation: another account's app is refused, its messages are invisible and untouchable")
    func tenantIsolation() async throws {
        let h = try await GatewayHarness()
        let foreign = await h.submitJSON(GatewayHarness.request(
            token: h.accountA.productToken, Self.msg(to: ["0031612345678"], extra: "\"appKey\":\"\(h.appB.key.text)\"")))
        #expect(foreign.lines.first?["status"] as? String == "Rejected")
        #expect(foreign.lines.first?["messageErrorCode"] as? Int == 403)

        let own = await h.submitJSON(GatewayHarness.request(
            token: h.accountA.productToken, Self.msg(to: ["0031612345678"], extra: #""reference":"secret-ref""#)))
        let id = try #require(own.lines.first?["messageId"] as? String)
        #expect(await h.service.lookup(token: h.accountA.productToken.text, idOrReference: id, byIDFirst: true).status == 200)
        #expect(await h.service.lookup(token: h.accountB.productToken.text, idOrReference: id, byIDFirst: true).status == 404)
        #expect(await h.service.lookup(token: h.accountB.productToken.text, idOrReference: "secret-ref", byIDFirst: true).status == 404)
        #expect(await h.service.manualFallback(token: h.accountB.productToken.text, idOrReference: id).status == 404)
        #expect(await h.service.lookup(token: nil, idOrReference: id, byIDFirst: true).status == 401)
        await h.close()
    }

    @Test("Idempotency-Key: a retry gets the first reply byte for byte and creates nothing; a different request is refused")
    func idempotency() async throws {
        let h = try await GatewayHarness()
        let request = GatewayHarness.request(token: h.accountA.productToken, Self.msg(to: ["0031612345678", "0031612345679"]))
        let first = await h.submitJSON(request, idempotencyKey: "key-1")
        let again = await h.submitJSON(request, idempotencyKey: "key-1")
        #expect(first.status == 200 && again == first)
        #expect(try h.count("SELECT count(*) FROM deliveries") == 2)

        let other = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(to: ["0031612345670"])),
                                       idempotencyKey: "key-1")
        #expect(other.status == 422)
        // The same key under another account is another key.
        let accountB = await h.submitJSON(GatewayHarness.request(token: h.accountB.productToken, Self.msg(to: ["0031612345678"])),
                                          idempotencyKey: "key-1")
        #expect(accountB.status == 200)
        #expect(try h.count("SELECT count(*) FROM deliveries") == 3)

        // Concurrent retries of one request create it once.
        let concurrent = GatewayHarness.request(token: h.accountA.productToken, Self.msg(to: ["0031699999999"]))
        let replies = await withTaskGroup(of: CMGatewayService.Reply.self) { group in
            for _ in 0..<8 { group.addTask { await h.submitJSON(concurrent, idempotencyKey: "key-2") } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(replies).count == 1)
        #expect(try h.count("SELECT count(*) FROM deliveries WHERE msisdn = '+31699999999'") == 1)
        await h.close()
    }

    @Test("XML: success is an empty 200; any bad message rejects the whole request and stores nothing")
    func xmlForm() async throws {
        let h = try await GatewayHarness()
        let good = await h.submitXML("""
            <?xml version="1.0"?><MESSAGES><AUTHENTICATION><PRODUCTTOKEN>\(h.accountA.productToken.text)</PRODUCTTOKEN></AUTHENTICATION>
            <MSG><FROM>Company</FROM><TO>00447911123456</TO><TO>+447911123457</TO><BODY><![CDATA[a <b> & c]]></BODY></MSG></MESSAGES>
            """)
        #expect(good.status == 200 && good.body.isEmpty)
        #expect(try h.count("SELECT count(*) FROM deliveries") == 2)
        let bad = await h.submitXML("""
            <MESSAGES><AUTHENTICATION><PRODUCTTOKEN>\(h.accountA.productToken.text)</PRODUCTTOKEN></AUTHENTICATION>
            <MSG><FROM>Company</FROM><TO>00447911123458</TO><BODY>fine</BODY></MSG>
            <MSG><FROM>Company</FROM><TO>not-a-number</TO><BODY>bad</BODY></MSG></MESSAGES>
            """)
        #expect(bad.status == 400)
        #expect(bad.text.hasPrefix("Error: ERROR "))
        #expect(try h.count("SELECT count(*) FROM deliveries") == 2)
        await h.close()
    }

    @Test("OTP fallbackFor: the earlier push is withdrawn (Cancelled) before the SMS message starts; one SMS in all")
    func fallbackFor() async throws {
        let h = try await GatewayHarness()
        try await h.verifiedDevice(h.appA, msisdn: "+31612345678")
        let otp = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031612345678"], body: "Your code is 1234",
            extra: "\"appKey\":\"\(h.appA.key.text)\",\"appMessageType\":\"otp\",\"reference\":\"otp-1\"")))
        #expect(otp.lines.first?["status"] as? String == "Accepted")
        #expect(await eventually { h.push.sent.count == 1 })

        let bad = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031612345678"], extra: #""allowedChannels":["SMS","Push"],"fallbackFor":"otp-1""#)))
        #expect(bad.lines.first?["messageErrorCode"] as? Int == 305)
        let unknown = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031612345678"], extra: #""allowedChannels":["SMS"],"fallbackFor":"otp-404""#)))
        #expect(unknown.lines.first?["messageErrorCode"] as? Int == 305)

        let fallback = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031612345678"], body: "Your code is 1234", extra: #""allowedChannels":[" sms "],"fallbackFor":"otp-1""#)))
        #expect(fallback.lines.first?["status"] as? String == "Accepted")
        let earlier = try #require(try h.store.messages(account: h.accountA.productToken, reference: "otp-1").first)
        let withdrawn = try #require(earlier.recipients.first)
        #expect(withdrawn.delivery.status == .cancelled && withdrawn.delivery.resolution == .withdrawn)
        #expect(withdrawn.delivery.pushTerminated)
        #expect(await eventually { h.sms.sent.count == 1 })
        await h.dispatcher.waitUntilIdle()
        #expect(h.sms.sent.count == 1)
        #expect(h.sms.sent.first?.msisdn.e164 == "+31612345678")
        await h.close()
    }

    @Test("POST /v1.0/message/{id}/fallback: the OTP's own SMS now, once")
    func manualFallbackEndpoint() async throws {
        let h = try await GatewayHarness()
        try await h.verifiedDevice(h.appA, msisdn: "+31612345678")
        let otp = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031612345678"], extra: "\"appKey\":\"\(h.appA.key.text)\",\"appMessageType\":\"OTP\"")))
        let id = try #require(otp.lines.first?["messageId"] as? String)
        #expect(await eventually { h.push.sent.count == 1 })
        let first = await h.service.manualFallback(token: h.accountA.productToken.text, idOrReference: id)
        #expect(first.status == 200)
        #expect(first.text.contains(#""fallback":"smsRequested""#))
        let second = await h.service.manualFallback(token: h.accountA.productToken.text, idOrReference: id)
        #expect(second.text.contains(#""fallback":"smsAlreadyRequested""#))
        #expect(await eventually { h.sms.sent.count == 1 })
        let view = await h.service.lookup(token: h.accountA.productToken.text, idOrReference: id, byIDFirst: true)
        #expect(view.text.contains(#""pushTerminated":true"#))
        #expect(view.text.contains(#""event":"manualFallbackRequested""#))
        await h.close()
    }
}

@Suite("Sender directory")
struct SenderDirectoryTests {
    @Test("registrations for many numbers in one read: grouped by number, only the app's, numbers without any absent")
    func registrationsByNumber() async throws {
        let h = try await GatewayHarness()
        let a1 = try await h.verifiedDevice(h.appA, msisdn: "+31612345678")
        let a2 = try await h.verifiedDevice(h.appA, msisdn: "+31612345678")
        let a3 = try await h.verifiedDevice(h.appA, msisdn: "+31612345679")
        try await h.verifiedDevice(h.appB, msisdn: "+31612345678")
        let numbers = try ["+31612345678", "+31612345679", "+31612345670"].map { try #require(MSISDN($0)) }
        let found = try h.store.registrations(app: h.appA.key, msisdns: numbers + [numbers[0]])
        #expect(Set(found.keys) == Set(numbers.prefix(2)))
        #expect(Set(found[numbers[0]]?.map(\.deviceID) ?? []) == [a1, a2])
        #expect(found[numbers[1]]?.map(\.deviceID) == [a3])
        #expect(found.values.joined().allSatisfy { $0.app == h.appA.key && $0.isPushable })
        let plan = try h.store.read { (db: Connection) throws(StoreError) in
            try db.query("""
                EXPLAIN QUERY PLAN SELECT device_id FROM registrations
                WHERE app_id = 1 AND msisdn IN (SELECT value FROM json_each('["+31612345678"]'))
                """).map { row throws(StoreError) in try row.get("detail", as: String.self) }.joined(separator: " ")
        }
        #expect(plan.contains("registrations_app_msisdn"), "\(plan)")
        await h.close()
    }
}
