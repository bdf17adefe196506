import Foundation
import Testing
import TandemCore
import TandemCrypto
import TandemEngine
import TandemStore
import TandemTestSupport
@testable import TandemAPI

/// The SCG API over the intake, on a real store and scheduler with recording providers and a manual clock.
@Suite("SCG messaging service")
struct SCGMessagingServiceTests {
    static let token = "b27fe514f9f7fae149491cdd101f917ff1ec6249ee9f33f0649070f48cc8d860"

    /// A harness, its SCG service and a live bearer token of account A (and one of account B).
    struct Fixture {
        let h: GatewayHarness
        let service: SCGMessagingService
        let bearerA: String
        let bearerB: String
    }

    static func fixture(holdPush: Bool = false, spoolThreshold: Int? = nil, spoolChunk: Int = 256) async throws -> Fixture {
        let h = try await GatewayHarness(spoolThreshold: spoolThreshold, spoolChunk: spoolChunk, holdPush: holdPush)
        let clock = h.clock
        let service = SCGMessagingService(intake: h.intake, messages: h.store,
                                          authenticator: SCGTokenAuthenticator(tokens: h.store, now: { clock.now() }),
                                          scheduler: h.scheduler)
        var bearers: [String] = []
        for account in [h.accountA, h.accountB] {
            let token = SCGTokenAuthenticator.newToken()
            _ = try await h.store.insertSCGToken(account: account.productToken, digest: SCGTokenAuthenticator.digest(token),
                                                 label: "test", createdAt: GatewayHarness.t0)
            bearers.append("Bearer " + token)
        }
        return Fixture(h: h, service: service, bearerA: bearers[0], bearerB: bearers[1])
    }

    static func json(_ reply: WireReply) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(reply.body))) as? [String: Any] ?? [:]
    }

    static func create(_ f: Fixture, _ body: String, bearer: String? = nil) async -> WireReply {
        await f.service.create(authorization: bearer ?? f.bearerA, body: Array(body.utf8))
    }

    @Test("no token, a malformed header or an unknown token → 401 JSON; nothing stored")
    func unauthorized() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.h.close() } }
        for header in [nil, "Basic abc", "Bearer ", "Bearer scg_" + String(repeating: "0", count: 64)] {
            let reply = await f.service.create(authorization: header, body: Array(#"{"from":"Shop","to":["+31612345678"],"body":"Hi"}"#.utf8))
            #expect(reply.status == 401 && reply.contentType == "application/json")
            #expect((Self.json(reply)["error"] as? [String: Any])?["code"] as? String == "UNAUTHORIZED")
        }
        await #expect(f.service.list(authorization: nil, offset: nil, limit: nil).status == 401)
        #expect(try f.h.count("SELECT COUNT(*) FROM messages") == 0)
    }

    @Test("a revoked token stops working once the token table is reloaded; only the digest is stored")
    func revoked() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.h.close() } }
        await #expect(f.service.list(authorization: f.bearerA, offset: nil, limit: nil).status == 200)
        let tokens = try #require(try f.h.store.scgTokens(account: f.h.accountA.productToken))
        #expect(try f.h.rows("SELECT token_sha256 FROM scg_tokens WHERE id = \(tokens[0].id)")
            == [[.text(Digest.hex(SCGTokenAuthenticator.digest(String(f.bearerA.dropFirst(7)))))]])
        #expect(try await f.h.store.revokeSCGToken(account: f.h.accountA.productToken, id: tokens[0].id, at: GatewayHarness.t0))
        #expect(try await !f.h.store.revokeSCGToken(account: f.h.accountB.productToken, id: tokens[0].id, at: GatewayHarness.t0))
        f.h.clock.advance(to: f.h.clock.now() + .seconds(5))
        await #expect(f.service.list(authorization: f.bearerA, offset: nil, limit: nil).status == 401)
        await #expect(f.service.list(authorization: f.bearerB, offset: nil, limit: nil).status == 200)
    }

    @Test("a psh:apn@ address by app key: {id} after the commit, pushed with the options' presentation, a registration of the app")
    func pushAddress() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.h.close() } }
        let reply = await Self.create(f, """
            {"from":"Shop","to":["psh:apn@\(f.h.appA.key.text)@\(Self.token)"],"body":"Parcel","options":{"push:badge":"4","push:appdata:s:order":"A1"},
             "external_id":"ext-9","campaign_id":"spring"}
            """)
        #expect(reply.status == 200)
        let id = try #require(Self.json(reply)["id"] as? String)
        #expect(try f.h.rows("SELECT message_id, api, reference, custom_grouping FROM messages")
            == [[.text(id), .text("scg"), .text("ext-9"), .text("spring")]])
        await f.h.dispatcher.waitUntilIdle()
        let pushed = try #require(f.h.push.sent.first)
        #expect(pushed.targets.map(\.token.text) == [Self.token] && pushed.targets.map(\.platform) == [.iOS])
        #expect(pushed.content.presentation.badge == 4)
        #expect(pushed.content.presentation.customData == [JSONMember(key: "order", value: .string("A1"))])
        #expect(try f.h.rows("SELECT origin, platform FROM registrations") == [[.text("pushAddress"), .text("iOS")]])

        let view = await Self.json(f.service.request(authorization: f.bearerA, id: id))
        #expect(view["id"] as? String == id && view["external_id"] as? String == "ext-9" && view["body"] as? String == "Parcel")
        #expect(view["to"] as? [String] == ["psh:apn@\(f.h.appA.key.text)@\(Self.token)"])
        #expect(view["state"] as? String == "TRANSMITTING")
        #expect(view["recipient_count"] as? Int == 1 && view["sent_count"] as? Int == 1 && view["delivered_count"] as? Int == 0)
        let messages = await Self.json(f.service.recipientMessages(authorization: f.bearerA, id: id))
        let message = try #require((messages["list"] as? [[String: Any]])?.first)
        #expect(message["id"] as? String == id + "-1" && message["state"] as? String == "SENT" && message["channel"] as? String == "PUSH")
        #expect(message["to_address"] as? String == "psh:apn@\(f.h.appA.key.text)@\(Self.token)" && message["from_address"] as? String == "Shop")
        #expect(message["sent_date"] is String && message["delivered_date"] is NSNull)
        let one = await Self.json(f.service.recipientMessage(authorization: f.bearerA, id: id + "-1"))
        #expect(one["id"] as? String == id + "-1" && one["state"] as? String == "SENT")
        await #expect(f.service.recipientMessage(authorization: f.bearerA, id: id + "-2").status == 404)
    }

    @Test("the app's sender id names it in psh: addresses and from; an unknown sender refuses the request with to[i], nothing stored")
    func senderID() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.h.close() } }
        #expect(try await f.h.store.changeSenderID(app: f.h.appA.key, to: "Xa13m001g9co35SkkcHeE6") == .set)
        #expect(try await f.h.store.changeSenderID(app: f.h.appB.key, to: "Xa13m001g9co35SkkcHeE6") == .set)  // another account: allowed
        let accepted = await Self.create(f, #"{"from":"sender_id:Xa13m001g9co35SkkcHeE6","to":["psh:fcm@Xa13m001g9co35SkkcHeE6@tok-a"],"body":"Hi"}"#)
        #expect(accepted.status == 200)
        let refused = await Self.create(f, #"{"from":"Shop","to":["psh:fcm@Xa13m001g9co35SkkcHeE6@tok-b","psh:apn@nobody@tok-c"],"body":"Hi"}"#)
        #expect(refused.status == 400)
        let error = try #require(Self.json(refused)["error"] as? [String: Any])
        #expect(error["field"] as? String == "to[1]" && (error["description"] as? String)?.contains("nobody") == true)
        #expect(try f.h.count("SELECT COUNT(*) FROM messages") == 1)
        // Only unknown senders (no app for the message at all): refused the same way, the intake does not trap.
        let none = await Self.create(f, #"{"from":"Shop","to":["psh:apn@nobody@tok-d"],"body":"Hi"}"#)
        #expect(none.status == 400 && (Self.json(none)["error"] as? [String: Any])?["field"] as? String == "to[0]")
        let mixed = await Self.create(f, #"{"from":"Shop","to":["+31612345678","psh:apn@nobody@tok-e"],"body":"Hi"}"#)
        #expect(mixed.status == 400 && (Self.json(mixed)["error"] as? [String: Any])?["field"] as? String == "to[1]")
        #expect(try f.h.count("SELECT COUNT(*) FROM messages") == 1)
    }

    @Test("a phone number without application_id goes by SMS; with the app and a verified install, by push")
    func phoneNumbers() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.h.close() } }
        try await f.h.verifiedDevice(f.h.appA, msisdn: "+31612345678")
        #expect(await Self.create(f, #"{"from":"Shop","to":["+31612345678"],"body":"Hi"}"#).status == 200)
        #expect(await Self.create(f, #"{"from":"Shop","to":["31612345678"],"body":"Hi","application_id":"\#(f.h.appA.key.text)"}"#).status == 200)
        await f.h.dispatcher.waitUntilIdle()
        #expect(f.h.sms.sent.count == 1 && f.h.push.sent.count == 1)
        let other = await Self.create(f, #"{"from":"Shop","to":["+31612345678"],"body":"Hi","application_id":"\#(f.h.appB.key.text)"}"#)
        #expect(other.status == 400 && (Self.json(other)["error"] as? [String: Any])?["field"] as? String == "application_id")
    }

    @Test("another account's request, a CM message and an unknown id are 404; the listing is newest first with offset, limit and total")
    func scopeAndListing() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.h.close() } }
        var ids: [String] = []
        for index in 0..<3 {
            let reply = await Self.create(f, #"{"from":"Shop","to":["+3161234567\#(index)"],"body":"Hi \#(index)"}"#)
            ids.append(try #require(Self.json(reply)["id"] as? String))
            f.h.clock.advance(to: f.h.clock.now() + .milliseconds(5))
        }
        let cm = await f.h.submitJSON(GatewayHarness.request(token: f.h.accountA.productToken, #"{"from":"Shop","to":[{"number":"+31612345679"}],"body":{"content":"Hi"}}"#))
        let cmID = try #require(cm.lines.first?["messageId"] as? String)
        await #expect(f.service.request(authorization: f.bearerB, id: ids[0]).status == 404)
        await #expect(f.service.request(authorization: f.bearerA, id: cmID).status == 404)
        await #expect(f.service.request(authorization: f.bearerA, id: "not-an-id").status == 404)
        #expect(await f.service.delete(authorization: f.bearerB, id: ids[0]).status == 404)

        let all = await Self.json(f.service.list(authorization: f.bearerA, offset: nil, limit: nil))
        #expect((all["list"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ids.reversed())
        #expect(all["total"] as? Int == 3)
        let page = await Self.json(f.service.list(authorization: f.bearerA, offset: "1", limit: "1"))
        #expect((page["list"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[1]] && page["total"] as? Int == 3)
        await #expect(Self.json(f.service.list(authorization: f.bearerB, offset: nil, limit: nil))["total"] as? Int == 0)
        for (offset, limit, field) in [("-1", nil, "offset"), (nil, "0", "limit"), (nil, "101", "limit"), ("x", nil, "offset")] as [(String?, String?, String)] {
            let reply = await f.service.list(authorization: f.bearerA, offset: offset, limit: limit)
            #expect(reply.status == 400 && (Self.json(reply)["error"] as? [String: Any])?["field"] as? String == field)
        }

        #expect(await f.service.delete(authorization: f.bearerA, id: ids[1]).status == 204)
        #expect(await f.service.delete(authorization: f.bearerA, id: ids[1]).status == 404)
        await #expect(f.service.request(authorization: f.bearerA, id: ids[1]).status == 404)
        let after = await Self.json(f.service.list(authorization: f.bearerA, offset: nil, limit: nil))
        #expect((after["list"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[2], ids[0]] && after["total"] as? Int == 2)
    }

    @Test("cancel: a push no service has taken ends CANCELED (the push withdrawn); a sent SMS carries on; the counters follow")
    func cancel() async throws {
        let f = try await Self.fixture(holdPush: true)
        defer { Task { await f.h.close() } }
        let reply = await Self.create(f, """
            {"from":"Shop","to":["psh:apn@\(f.h.appA.key.text)@\(Self.token)","+31612345678"],"body":"Hi"}
            """)
        let id = try #require(Self.json(reply)["id"] as? String)
        while f.h.push.waiting == 0 { await Task.yield() }
        let bad = await f.service.changeState(authorization: f.bearerA, id: id, body: Array(#"{"state":"PAUSED"}"#.utf8))
        #expect(bad.status == 400)
        #expect(await f.service.changeState(authorization: f.bearerB, id: id, body: Array(#"{"state":"CANCELED"}"#.utf8)).status == 404)
        let cancelled = await f.service.changeState(authorization: f.bearerA, id: id, body: Array(#"{"state":"CANCELED"}"#.utf8))
        #expect(cancelled.status == 204)
        f.h.push.release()
        await f.h.dispatcher.waitUntilIdle()
        #expect(f.h.push.sent.isEmpty && f.h.push.cancelled == 1)
        let messages = try await #require(Self.json(f.service.recipientMessages(authorization: f.bearerA, id: id))["list"] as? [[String: Any]])
        #expect(messages.compactMap { $0["state"] as? String } == ["CANCELED", "SENT"])
        #expect(messages.compactMap { $0["to_address"] as? String } == ["psh:apn@\(f.h.appA.key.text)@\(Self.token)", "+31612345678"])
        let view = await Self.json(f.service.request(authorization: f.bearerA, id: id))
        #expect(view["state"] as? String == "TRANSMITTING")
        #expect(view["recipient_count"] as? Int == 2 && view["canceled_count"] as? Int == 1 && view["sent_count"] as? Int == 1)
    }

    @Test("cancel of a spooled request: recipients still queued end CANCELED unsent, the started ones as any other; the spool is done")
    func cancelSpooled() async throws {
        let f = try await Self.fixture(spoolThreshold: 3, spoolChunk: 2)
        defer { Task { await f.h.close() } }
        let numbers = (1...5).map { "+3161234567\($0)" }
        let reply = await Self.create(f, """
            {"from":"Shop","to":[\(numbers.map { "\"\($0)\"" }.joined(separator: ","))],"body":"Hi"}
            """)
        let id = try #require(Self.json(reply)["id"] as? String)
        #expect(try f.h.count("SELECT count(*) FROM deliveries") == 0)
        #expect(try await f.h.drainer.startNextChunk())  // two recipients start; three stay queued
        await f.h.dispatcher.waitUntilIdle()
        #expect(f.h.sms.sent.count == 2)

        let cancelled = await f.service.changeState(authorization: f.bearerA, id: id, body: Array(#"{"state":"CANCELED"}"#.utf8))
        #expect(cancelled.status == 204)
        #expect(try f.h.count("SELECT count(*) FROM message_spools") == 0)
        #expect(try await f.h.drainer.startNextChunk() == false)
        await f.h.dispatcher.waitUntilIdle()
        #expect(f.h.sms.sent.count == 2)
        let messages = try await #require(Self.json(f.service.recipientMessages(authorization: f.bearerA, id: id))["list"] as? [[String: Any]])
        #expect(messages.compactMap { $0["to_address"] as? String } == numbers)
        #expect(messages.compactMap { $0["state"] as? String } == ["SENT", "SENT", "CANCELED", "CANCELED", "CANCELED"])
        let view = await Self.json(f.service.request(authorization: f.bearerA, id: id))
        #expect(view["recipient_count"] as? Int == 5 && view["canceled_count"] as? Int == 3 && view["sent_count"] as? Int == 2)
    }

    @Test("Idempotency-Key: a retry gets the first id and stores nothing more; the key with another body → 422; a bad key → 400")
    func idempotency() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.h.close() } }
        let body = Array(#"{"from":"Shop","to":["+31612345678"],"body":"Hi"}"#.utf8)
        let first = await f.service.create(authorization: f.bearerA, idempotencyKey: "order-17", body: body)
        let retry = await f.service.create(authorization: f.bearerA, idempotencyKey: "order-17", body: body)
        #expect(first.status == 200 && retry.status == 200 && retry.body == first.body)
        #expect(try f.h.count("SELECT count(*) FROM messages") == 1)

        let other = await f.service.create(authorization: f.bearerA, idempotencyKey: "order-17",
                                           body: Array(#"{"from":"Shop","to":["+31612345678"],"body":"Bye"}"#.utf8))
        #expect(other.status == 422)
        #expect((Self.json(other)["error"] as? [String: Any])?["code"] as? String == "IDEMPOTENCY_KEY_REUSED")
        let bad = await f.service.create(authorization: f.bearerA, idempotencyKey: "två", body: body)
        #expect(bad.status == 400 && (Self.json(bad)["error"] as? [String: Any])?["field"] as? String == "Idempotency-Key")
        // Keys are the account's own: another account's same key is a new request.
        let elsewhere = await f.service.create(authorization: f.bearerB, idempotencyKey: "order-17", body: body)
        #expect(elsewhere.status == 200 && elsewhere.body != first.body)
        #expect(try f.h.count("SELECT count(*) FROM messages") == 2)
    }
}
