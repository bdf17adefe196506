import Foundation
import TandemCore
import TandemEngine
import TandemStore
import TandemTestSupport
import Testing
@testable import TandemAPI

@Suite("Recipient spools (bulk messages)")
struct RecipientSpoolTests {
    static func msg(to numbers: [String], extra: String = "") -> String {
        CMGatewayServiceTests.msg(to: numbers, extra: extra)
    }

    /// The stored numbers of every delivery, in delivery (start) order.
    static func deliveredNumbers(_ h: GatewayHarness) throws -> [String] {
        try h.rows("SELECT msisdn FROM deliveries ORDER BY id").map {
            if case .text(let number) = $0[0] { number } else { "?" }
        }
    }

    @Test("a bulk msg is answered with only its recipient list stored; the drainer starts each recipient once, in order, routed when it starts")
    func spooledThenStarted() async throws {
        let h = try await GatewayHarness(spoolThreshold: 3, spoolChunk: 2)
        let numbers = ["0031600000001", "0031600000002", "12345", "0031600000003", "0031600000004"]
        let reply = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: numbers, extra: "\"appKey\":\"\(h.appA.key.text)\",\"reference\":\"bulk-1\"")))
        #expect(reply.status == 200)
        #expect(reply.json["errorCode"] as? Int == 201)  // the malformed number is rejected on its own line
        #expect(reply.lines.map { $0["status"] as? String } == ["Accepted", "Accepted", "Rejected", "Accepted", "Accepted"])
        let id = try #require(reply.lines.first?["messageId"] as? String)
        #expect(try h.count("SELECT count(*) FROM deliveries") == 0)
        #expect(try h.rows("SELECT recipients, total, started FROM message_spools")
            == [[.text("+31600000001,+31600000002,+31600000003,+31600000004"), .integer(4), .integer(0)]])

        let queued = await h.service.lookup(token: h.accountA.productToken.text, idOrReference: id, byIDFirst: true)
        #expect(queued.status == 200)
        let recipients = queued.json["recipients"] as? [[String: Any]] ?? []
        #expect(recipients.map { $0["to"] as? String } == ["+31600000001", "+31600000002", "+31600000003", "+31600000004"])
        #expect(recipients.allSatisfy { $0["queued"] as? Bool == true && $0["status"] as? String == "Accepted" })
        #expect(recipients.allSatisfy { $0["updateId"] is NSNull })

        // Registered after the message was accepted, before it starts: the push goes to this device.
        try await h.verifiedDevice(h.appA, msisdn: "+31600000003")
        #expect(try await h.drainer.startNextChunk())
        #expect(try h.rows("SELECT total, started FROM message_spools") == [[.integer(4), .integer(2)]])
        let partly = await h.service.lookup(token: h.accountA.productToken.text, idOrReference: id, byIDFirst: true)
        let mixed = partly.json["recipients"] as? [[String: Any]] ?? []
        #expect(mixed.map { $0["queued"] as? Bool } == [false, false, true, true])

        try await h.drainer.drainAll()
        #expect(try Self.deliveredNumbers(h) == ["+31600000001", "+31600000002", "+31600000003", "+31600000004"])
        #expect(try h.count("SELECT count(*) FROM message_spools") == 0)
        #expect(try await h.drainer.startNextChunk() == false)
        #expect(await eventually { h.sms.sent.count == 3 && h.push.sent.count == 1 })
        #expect(h.push.sent.first?.recipient.storedText == "+31600000003")
        #expect(Set(h.sms.sent.map(\.msisdn.e164)) == ["+31600000001", "+31600000002", "+31600000004"])
        #expect(h.sms.sent.allSatisfy { $0.content.reference == "bulk-1" && $0.content.messageID.text == id })
        await h.dispatcher.waitUntilIdle()
        #expect(h.sms.sent.count == 3)
        await h.close()
    }

    @Test("below the threshold, and a fallbackFor message, start their deliveries before the reply")
    func notSpooled() async throws {
        let h = try await GatewayHarness(spoolThreshold: 3)
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031600000001", "0031600000002"], extra: #""reference":"small""#)))
        #expect(try h.count("SELECT count(*) FROM deliveries") == 2)
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031600000001", "0031600000002", "0031600000003"], extra: #""allowedChannels":["SMS"],"fallbackFor":"small""#)))
        #expect(try h.count("SELECT count(*) FROM deliveries") == 5)
        #expect(try h.count("SELECT count(*) FROM message_spools") == 0)
        await h.close()
    }

    @Test("the position is in the store: another drainer continues where the first stopped, and progress that does not continue it is refused")
    func progressIsDurableAndChecked() async throws {
        let h = try await GatewayHarness(spoolThreshold: 2, spoolChunk: 2)
        let numbers = (1...5).map { "00316000000\(String(format: "%02d", $0))" }
        let reply = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(to: numbers)))
        let idText = try #require(reply.lines.first?["messageId"] as? String)
        let id = try #require(GUID(idText))
        #expect(try await h.drainer.startNextChunk())

        // The position the first chunk committed cannot be committed again (its recipients would start twice):
        // the whole transaction fails and stores nothing.
        let content = MessageContent(messageID: id, sender: "Tandem", body: "Hello", reference: nil)
        let again = Scheduler.NewDelivery(recipient: .msisdn(try #require(MSISDN("+31600000001"))), content: content,
                                          decision: .reject(.noAppKey), smsValidity: .seconds(60))
        await #expect(throws: (any Error).self) {
            _ = try await h.scheduler.accept([again], request: AcceptedRequest(
                spoolProgress: [SpoolProgress(messageID: id, before: 0, started: 1)]))
        }
        #expect(try h.count("SELECT count(*) FROM deliveries") == 2)

        // A drainer that never saw this spool (as after a restart) starts the rest, once.
        let clock = h.clock
        let second = SpoolDrainer(spool: h.store, directory: h.store, scheduler: h.scheduler, policies: .specDefaults,
                                  now: { clock.now() }, configuration: SpoolDrainer.Configuration(chunk: 2))
        try await second.drainAll()
        #expect(await second.recipientsStarted == 3)
        #expect(try Self.deliveredNumbers(h) == ["+31600000001", "+31600000002", "+31600000003", "+31600000004", "+31600000005"])
        #expect(try h.count("SELECT count(*) FROM message_spools") == 0)
        await h.close()
    }

    @Test("validity that ended while recipients waited: they end Failed (validity expired) and are reported; nothing is sent")
    func expiredWhileQueued() async throws {
        let h = try await GatewayHarness(spoolThreshold: 2)
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031600000001", "0031600000002"], extra: #""validity":"1m","reference":"late""#)))
        h.clock.advance(to: GatewayHarness.t0 + .seconds(61))
        try await h.drainer.drainAll()
        let view = try #require(try h.store.messages(account: h.accountA.productToken, reference: "late").first)
        #expect(view.recipients.count == 2 && view.queued.isEmpty)
        #expect(view.recipients.allSatisfy { $0.delivery.resolution == .validityExpired && $0.delivery.isFinal })
        await h.dispatcher.waitUntilIdle()
        #expect(h.sms.sent.isEmpty && h.push.sent.isEmpty)
        await h.close()
    }

    @Test("allowedChannels and the app survive the spool: SMS only, although the number has a pushable device")
    func routingFieldsSurvive() async throws {
        let h = try await GatewayHarness(spoolThreshold: 2)
        try await h.verifiedDevice(h.appA, msisdn: "+31600000001")
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031600000001", "0031600000002"],
            extra: "\"appKey\":\"\(h.appA.key.text)\",\"allowedChannels\":[\"SMS\"],\"dcs\":8")))
        try await h.drainer.drainAll()
        #expect(await eventually { h.sms.sent.count == 2 })
        #expect(h.push.sent.isEmpty)
        #expect(h.sms.sent.allSatisfy { $0.content.app == h.appA.key && $0.content.forceUCS2 })
        await h.close()
    }

    @Test("fallbackFor and /fallback on a spooled message start its queued recipients first, so the push is withdrawn, not sent after the SMS")
    func fallbackStartsQueuedRecipients() async throws {
        let h = try await GatewayHarness(spoolThreshold: 2)
        try await h.verifiedDevice(h.appA, msisdn: "+31600000001")
        try await h.verifiedDevice(h.appA, msisdn: "+31600000002")
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031600000001", "0031600000002"],
            extra: "\"appKey\":\"\(h.appA.key.text)\",\"appMessageType\":\"OTP\",\"reference\":\"otp-bulk\"")))
        #expect(try h.count("SELECT count(*) FROM deliveries") == 0)

        let fallback = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031600000001"], extra: #""allowedChannels":["SMS"],"fallbackFor":"otp-bulk""#)))
        #expect(fallback.lines.first?["status"] as? String == "Accepted")
        let earlier = try #require(try h.store.messages(account: h.accountA.productToken, reference: "otp-bulk").first)
        #expect(earlier.queued.isEmpty && earlier.recipients.count == 2)
        let withdrawn = try #require(earlier.recipients.first { $0.recipient.storedText == "+31600000001" })
        #expect(withdrawn.delivery.status == .cancelled)

        // The second message of the same kind, through the endpoint.
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["0031600000001", "0031600000002"],
            extra: "\"appKey\":\"\(h.appA.key.text)\",\"appMessageType\":\"OTP\",\"reference\":\"otp-bulk-2\"")))
        let reply = await h.service.manualFallback(token: h.accountA.productToken.text, idOrReference: "otp-bulk-2")
        #expect(reply.status == 200)
        #expect(reply.text.components(separatedBy: #""fallback":"smsRequested""#).count == 3)
        await h.close()
    }

    @Test("a retried spooled request (Idempotency-Key) gets the first reply and spools nothing more; XML spools the same way, and a rejected XML request spools nothing")
    func idempotencyAndXML() async throws {
        let h = try await GatewayHarness(spoolThreshold: 2)
        let request = GatewayHarness.request(token: h.accountA.productToken, Self.msg(to: ["0031600000001", "0031600000002"]))
        let first = await h.submitJSON(request, idempotencyKey: "bulk-1")
        let retry = await h.submitJSON(request, idempotencyKey: "bulk-1")
        #expect(first.status == 200 && retry.body == first.body)
        #expect(try h.rows("SELECT total, started FROM message_spools") == [[.integer(2), .integer(0)]])

        let token = h.accountA.productToken.text
        let good = await h.submitXML("""
            <MESSAGES><AUTHENTICATION><PRODUCTTOKEN>\(token)</PRODUCTTOKEN></AUTHENTICATION>
            <MSG><FROM>Company</FROM><TO>0031600000003</TO><TO>0031600000004</TO><TO>0031600000005</TO><BODY>hi</BODY></MSG></MESSAGES>
            """)
        #expect(good.status == 200 && good.body.isEmpty)
        let bad = await h.submitXML("""
            <MESSAGES><AUTHENTICATION><PRODUCTTOKEN>\(token)</PRODUCTTOKEN></AUTHENTICATION>
            <MSG><FROM>Company</FROM><TO>0031600000006</TO><TO>0031600000007</TO><BODY>hi</BODY></MSG>
            <MSG><FROM>Company</FROM><TO>not-a-number</TO><BODY>bad</BODY></MSG></MESSAGES>
            """)
        #expect(bad.status == 400)
        #expect(try h.rows("SELECT total FROM message_spools ORDER BY message_id") == [[.integer(2)], [.integer(3)]])
        try await h.drainer.drainAll()
        #expect(try h.count("SELECT count(*) FROM deliveries") == 5)
        #expect(await eventually { h.sms.sent.count == 5 })
        await h.close()
    }

    @Test("accounts take turns, a chunk each: a later small send from one account is not held up behind another's large one")
    func accountsTakeTurns() async throws {
        let h = try await GatewayHarness(spoolThreshold: 2, spoolChunk: 2)
        let numbers = { (prefix: String, count: Int) in (1...count).map { "00316\(prefix)\(String(format: "%05d", $0))" } }
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(to: numbers("100", 6))))
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(to: numbers("200", 2))))
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountB.productToken, Self.msg(to: numbers("300", 4))))
        try await h.drainer.drainAll()
        // A's first message two by two, with B's message in between; A's second message after its first.
        #expect(try Self.deliveredNumbers(h).map { String($0.dropFirst(4).prefix(3)) }
            == ["100", "100", "300", "300", "100", "100", "300", "300", "100", "100", "200", "200"])
        await h.close()
    }
}
