import Foundation
import Testing
import TandemCore
import TandemHTTP
import TandemTestSupport
@testable import TandemAPI

@Suite("Device API: inbox and receipts")
struct DeviceMessagesTests {
    /// Sends one message through the gateway as account A (app A unless `app` says otherwise).
    private func send(_ h: DeviceAPIHarness, to number: String, body: String, type: String = "Default", app: App? = nil,
                      from: String = "Tandem", channels: String? = nil) async throws -> String {
        let app = app ?? h.appA
        let token = app == h.appA ? h.gateway.accountA.productToken : h.gateway.accountB.productToken
        let allowed = channels.map { #","allowedChannels":\#($0)"# } ?? ""
        let reply = await h.gateway.submitJSON(GatewayHarness.request(token: token, """
            {"from":"\(from)","to":[{"number":"\(number)"}],"body":{"content":"\(body)"},"appKey":"\(app.key.text)",
             "appMessageType":"\(type)"\(allowed)}
            """))
        guard reply.status == 200 else { throw HarnessError("send failed: \(reply.text)") }
        let id = try h.gateway.rows("SELECT message_id FROM messages ORDER BY id DESC LIMIT 1").first?.first
        guard case .text(let text)? = id else { throw HarnessError("no message stored") }
        return text
    }

    private func advance(_ h: DeviceAPIHarness, by seconds: Double) async throws {
        h.clock.advance(to: h.clock.now() + .milliseconds(Int64(seconds * 1_000)))
        try await h.gateway.scheduler.fireDueTimers()
        await h.gateway.dispatcher.waitUntilIdle()
    }

    private func updateID(_ h: DeviceAPIHarness, message: String) throws -> Int64 {
        let rows = try h.gateway.rows("""
            SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.message_id = '\(message)'
            """)
        guard case .integer(let id)? = rows.first?.first else { throw HarnessError("no delivery for \(message)") }
        return id
    }

    @Test("the inbox lists what was pushed to the verified number for this app, newest first, with OData")
    func inbox() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31600000100")
        let first = try await send(h, to: "+31600000100", body: "first", from: "Alpha")
        try await advance(h, by: 1)
        let otp = try await send(h, to: "+31600000100", body: "code 1234", type: "OTP", from: "Bank")
        try await advance(h, by: 1)
        let third = try await send(h, to: "+31600000100", body: "third", from: "Beta")
        // Not in this inbox: another number, an SMS-only message, another app's message to the same number.
        _ = try await send(h, to: "+31600000101", body: "other number")
        _ = try await send(h, to: "+31600000100", body: "sms only", channels: #"["SMS"]"#)
        _ = try await h.verifiedDevice(h.appB, msisdn: "+31600000100")
        _ = try await send(h, to: "+31600000100", body: "app B", app: h.appB)
        #expect(await eventually { h.gateway.push.sent.count == 4 })
        // The OTP is never acknowledged: its 30 s lifetime ends (Failed, expired) and the app sees it Cancelled, bodiless.
        try await advance(h, by: 31)

        let all = await h.call(.GET, "/v1.0/messages", app: h.appA, device: device)
        #expect(all.status == 200)
        #expect(all.list.map { $0["ID"] as? String } == [third, otp, first])
        let otpRow = try #require(all.list.first { $0["ID"] as? String == otp })
        #expect(otpRow["Status"] as? String == "Cancelled")
        #expect(otpRow["Body"] == nil)
        let firstRow = try #require(all.list.last)
        #expect(firstRow["Body"] as? String == "first")
        #expect(firstRow["Sender"] as? String == "Alpha")
        #expect(firstRow["Recipient"] as? String == "0031600000100")
        #expect(firstRow["UpdateID"] as? String == String(try updateID(h, message: first)))
        #expect(firstRow["Status"] as? String == "Accepted")
        #expect(firstRow["DateTime"] as? String == ISO8601.format(GatewayHarness.t0, zoneDesignator: false))

        let cases: [(String, [String])] = [
            ("$top=1", [third]),
            ("$top=1&$skip=1", [otp]),
            ("$orderby=Sender", [first, otp, third]),
            ("$orderby=DateTime%20asc", [first, otp, third]),
            ("$filter=Status%20eq%20'Cancelled'", [otp]),
            ("$filter=Sender%20eq%20'Beta'%20or%20Sender%20eq%20'Alpha'", [third, first]),
            ("$filter=not%20(Status%20eq%20'Cancelled')", [third, first]),
            ("$filter=DateTime%20gt%20datetime'\(ISO8601.format(GatewayHarness.t0 + .milliseconds(500)))'", [third, otp]),
            ("$filter=ID%20eq%20guid'\(first)'", [first]),
        ]
        for (query, expected) in cases {
            let reply = await h.call(.GET, "/v1.0/messages?\(query)", app: h.appA, device: device)
            #expect(reply.status == 200, "\(query): \(reply.text)")
            #expect(reply.list.map { $0["ID"] as? String } == expected, "\(query)")
        }
        let selected = await h.call(.GET, "/v1.0/messages?$select=ID,Status&$top=1", app: h.appA, device: device)
        #expect(selected.list.first.map { Set($0.keys) } == ["ID", "Status"])

        for bad in ["$expand=Body", "$filter=substringof('a',Body)", "$top=-1", "$orderby=Body", "$filter=Status%20gt%20'Sent'"] {
            let reply = await h.call(.GET, "/v1.0/messages?\(bad)", app: h.appA, device: device)
            #expect(reply.status == 400, "\(bad)")
            #expect(reply.message.contains("$"), "\(bad): \(reply.message)")
        }
    }

    @Test("an install without a verified number has an empty inbox")
    func unverifiedInbox() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        _ = try await h.verifiedDevice(h.appA, msisdn: "+31600000110")
        _ = try await send(h, to: "+31600000110", body: "hello")
        let stranger = try await h.register(h.appA, body: #"{"Msisdn":"+31600000110"}"#)
        let reply = await h.call(.GET, "/v1.0/messages", app: h.appA, device: stranger)
        #expect(reply.status == 200)
        #expect(reply.text == "[]")
    }

    @Test("Critical: a read at 10 s means no SMS ever")
    func readCancelsFallback() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31600000120")
        let message = try await send(h, to: "+31600000120", body: "alert", type: "Critical")
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        await h.gateway.dispatcher.waitUntilIdle()
        try await advance(h, by: 10)
        let read = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device,
                                body: #"{"UpdateID":"\#(try updateID(h, message: message))","Status":"Delivered","ReadByRecipient":"2026-11-21T10:00:10.000"}"#)
        #expect(read.status == 204, "\(read.text)")
        try await advance(h, by: 60)
        try await advance(h, by: 3_600)
        #expect(h.gateway.sms.sent.isEmpty)
        let listed = await h.call(.GET, "/v1.0/messages", app: h.appA, device: device)
        #expect(listed.list.first?["Status"] as? String == "Delivered")
        #expect(try h.gateway.count("SELECT count(*) FROM deliveries WHERE status = 'Read' AND final = 1") == 1)
    }

    @Test("Critical: a delivery ack alone → the SMS at 30 s, not before")
    func ackAloneFallsBack() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31600000130")
        let sentAt = h.clock.now()
        let message = try await send(h, to: "+31600000130", body: "alert", type: "Critical")
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        await h.gateway.dispatcher.waitUntilIdle()
        try await advance(h, by: 2)
        let ack = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device,
                               body: #"{"UpdateID":\#(try updateID(h, message: message)),"Status":"Delivered"}"#)
        #expect(ack.status == 204)
        h.clock.advance(to: sentAt + .milliseconds(29_999))
        try await h.gateway.scheduler.fireDueTimers()
        await h.gateway.dispatcher.waitUntilIdle()
        #expect(h.gateway.sms.sent.isEmpty)
        h.clock.advance(to: sentAt + .seconds(30))
        try await h.gateway.scheduler.fireDueTimers()
        await h.gateway.dispatcher.waitUntilIdle()
        #expect(h.gateway.sms.sent.count == 1)
        #expect(h.gateway.sms.sent.first?.msisdn == MSISDN("+31600000130"))
    }

    @Test("receipts: bad bodies are 400, unknown UpdateIDs 404, and a late ack on a final delivery is logged only")
    func receiptErrors() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31600000140")
        let message = try await send(h, to: "+31600000140", body: "hi")
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        let id = try updateID(h, message: message)
        for (index, bad) in [#"{"Status":"Delivered"}"#, #"{"UpdateID":"abc","Status":"Delivered"}"#, #"{"UpdateID":"\#(id)"}"#,
                             #"{"UpdateID":"\#(id)","Status":"Read"}"#, #"{"UpdateID":"\#(id)","ReadByRecipient":"yesterday"}"#,
                             "[]", ""].enumerated() {
            h.clock.advance(to: h.clock.now() + .milliseconds(Int64(index)))
            let reply = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: bad)
            #expect(reply.status == 400, "\(bad)")
        }
        let unknown = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: #"{"UpdateID":"987654321","Status":"Delivered"}"#)
        #expect(unknown.status == 404)
        let delivered = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: #"{"UpdateID":"\#(id)","Status":"Delivered"}"#)
        #expect(delivered.status == 204)
        #expect(try h.gateway.count("SELECT count(*) FROM deliveries WHERE id = \(id) AND status = 'Delivered' AND final = 1") == 1)
        // Final already: the read is recorded in the log and changes nothing.
        h.clock.advance(to: h.clock.now() + .seconds(1))
        let late = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device,
                                body: #"{"UpdateID":"\#(id)","ReadByRecipient":"2026-11-21T10:00:10Z"}"#)
        #expect(late.status == 204)
        #expect(try h.gateway.count("SELECT count(*) FROM delivery_events WHERE delivery_id = \(id) AND kind = 'readReported'") == 1)
        #expect(try h.gateway.count("SELECT count(*) FROM deliveries WHERE id = \(id) AND status = 'Delivered'") == 1)
        // Past the UpdateID's 24 hours, a final delivery takes no more receipts.
        h.clock.advance(to: h.clock.now() + .seconds(24 * 3_600 + 1))
        let expired = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device,
                                   body: #"{"UpdateID":"\#(id)","ReadByRecipient":"2026-11-22T10:00:10Z"}"#)
        #expect(expired.status == 404)
    }

    @Test("a backend that answers no read without waiting: receipts are checked in a task, in the same order, each admitted once")
    func receiptsWaitingForReads() async throws {
        let h = try await DeviceAPIHarness(waiting: true)
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31600000150")
        let message = try await send(h, to: "+31600000150", body: "hi", type: "Critical")
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        let id = try updateID(h, message: message)
        let unknownDevice = await h.call(.PUT, "/v1.0/messages", app: h.appA,
                                         device: DeviceID("6f9619ff-8b86-d011-b42d-00cf4fc964ff"), body: "not json")
        #expect(unknownDevice.status == 400)
        #expect(unknownDevice.message.contains("DeviceID is not known"))
        // The keyring's entry is stale: the app is read in the task too (a replay guard admitting the request twice
        // would refuse it as a replay).
        h.clock.advance(to: h.clock.now() + .seconds(6))
        let signedOnce = h.authorization(h.appA, method: "PUT", target: "/v1.0/messages")
        let body = #"{"UpdateID":"\#(id)","Status":"Delivered"}"#
        let delivered = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: body, authorization: signedOnce)
        #expect(delivered.status == 204)
        let replayed = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: body, authorization: signedOnce)
        #expect(replayed.status == 401)
        // The keyring holds the app now: only the registration is read in a task.
        h.clock.advance(to: h.clock.now() + .seconds(1))
        let read = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device,
                                body: #"{"UpdateID":"\#(id)","ReadByRecipient":"2026-11-21T10:00:10Z"}"#)
        #expect(read.status == 204)
        #expect(try h.gateway.count("SELECT count(*) FROM delivery_events WHERE delivery_id = \(id) AND kind = 'readReported'") == 1)
        let bad = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: #"{"UpdateID":"\#(id)"}"#)
        #expect(bad.status == 400)
    }

    @Test("tenant isolation: another app's install, or another number's, can neither list nor acknowledge")
    func isolation() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let mine = try await h.verifiedDevice(h.appA, msisdn: "+31600000150")
        let sameNumberOtherApp = try await h.verifiedDevice(h.appB, msisdn: "+31600000150")
        let otherNumberSameApp = try await h.verifiedDevice(h.appA, msisdn: "+31600000151")
        let message = try await send(h, to: "+31600000150", body: "secret")
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        let id = try updateID(h, message: message)

        let otherApp = await h.call(.GET, "/v1.0/messages", app: h.appB, device: sameNumberOtherApp)
        #expect(otherApp.text == "[]")
        let otherNumber = await h.call(.GET, "/v1.0/messages", app: h.appA, device: otherNumberSameApp)
        #expect(otherNumber.text == "[]")
        let ackByOtherApp = await h.call(.PUT, "/v1.0/messages", app: h.appB, device: sameNumberOtherApp,
                                         body: #"{"UpdateID":"\#(id)","Status":"Delivered"}"#)
        #expect(ackByOtherApp.status == 404)
        let ackByOtherNumber = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: otherNumberSameApp,
                                            body: #"{"UpdateID":"\#(id)","Status":"Delivered"}"#)
        #expect(ackByOtherNumber.status == 404)
        // App B's key with app A's install: the DeviceID is not B's.
        let crossKey = await h.call(.GET, "/v1.0/messages", app: h.appB, device: mine)
        #expect(crossKey.status == 400)
        #expect(try h.gateway.count("SELECT count(*) FROM delivery_events WHERE delivery_id = \(id) AND kind = 'deliveryAcknowledged'") == 0)
        let mineList = await h.call(.GET, "/v1.0/messages", app: h.appA, device: mine)
        #expect(mineList.list.map { $0["Body"] as? String } == ["secret"])
        // Final (no longer in the scheduler's memory): the same answers, from the store.
        let read = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: mine, body: #"{"UpdateID":"\#(id)","ReadByRecipient":"2026-11-21T10:00:00Z"}"#)
        #expect(read.status == 204)
        #expect(try h.gateway.count("SELECT count(*) FROM deliveries WHERE id = \(id) AND final = 1") == 1)
        h.clock.advance(to: h.clock.now() + .seconds(1))
        for (app, device) in [(h.appB, sameNumberOtherApp), (h.appA, otherNumberSameApp)] {
            let late = await h.call(.PUT, "/v1.0/messages", app: app, device: device, body: #"{"UpdateID":"\#(id)","Status":"Delivered"}"#)
            #expect(late.status == 404)
        }
        #expect(try h.gateway.count("SELECT count(*) FROM delivery_events WHERE delivery_id = \(id) AND kind = 'deliveryAcknowledged'") == 0)
    }

    @Test("a SIM change (DELETE) is seen by the very next request: its receipts are refused until the number is verified again")
    func resetSeenAtOnce() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31600000160")
        let message = try await send(h, to: "+31600000160", body: "hi")
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        let id = try updateID(h, message: message)
        // The registration is read (and cached) by this request.
        #expect(await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: device).status == 200)
        h.clock.advance(to: h.clock.now() + .milliseconds(1))
        #expect(await h.call(.DELETE, "/v1.0/deviceregistrations", app: h.appA, device: device).status == 200)
        h.clock.advance(to: h.clock.now() + .milliseconds(1))
        let ack = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: #"{"UpdateID":"\#(id)","Status":"Delivered"}"#)
        #expect(ack.status == 404)
        #expect(try h.gateway.count("SELECT count(*) FROM delivery_events WHERE delivery_id = \(id) AND kind = 'deliveryAcknowledged'") == 0)
    }
}
