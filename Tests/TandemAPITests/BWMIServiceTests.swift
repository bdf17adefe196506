import Synchronization
import Foundation
import Testing
import TandemCore
import TandemEngine
import TandemHTTP
import TandemStore
import TandemTestSupport
@testable import TandemAPI

/// ``BWMIService`` on a real store, scheduler and intake with recording providers and a manual clock: the
/// managed-notification lifecycle (badges stamped per device, acks, pending) and the hybrid behaviour of a
/// trusted phone (a Critical CM message acked in its window sends no SMS; unacked, one SMS at the window).
@Suite("BWMI service")
struct BWMIServiceTests {
    static let phone = "+19883999901"

    final class Harness: Sendable {
        let gateway: GatewayHarness
        let service: BWMIService
        let router: HTTPRouter

        /// `badgePush`: where badge-only updates go (default: the gateway's push sender, with every other push).
        /// `waiting`: the service reads through ``WaitingBackend`` (no read answered without waiting) instead of the store.
        init(badgePush: (any PushSender)? = nil, waiting: Bool = false) async throws {
            gateway = try await GatewayHarness()
            let clock = gateway.clock
            let backend = WaitingBackend(store: gateway.store)
            service = BWMIService(registry: waiting ? backend : gateway.store, directory: waiting ? backend : gateway.store, ledger: gateway.store, intake: gateway.intake,
                                  scheduler: gateway.scheduler, push: badgePush ?? gateway.push,
                                  authenticator: ProductTokenAuthenticator(directory: gateway.store, now: { clock.now() }),
                                  policies: .specDefaults, now: { clock.now() })
            var router = HTTPRouter()
            BWMIEndpoint(service: service).register(in: &router)
            self.router = router
        }

        func call(_ method: HTTPMethod, _ target: String, _ body: String = "", token: ProductToken? = nil) async -> Response {
            var headers: [(String, String)] = [("Content-Type", "application/json")]
            if let token { headers.append(("X-CM-PRODUCTTOKEN", token.text)) }
            var request = Request(method: method, target: target, headers: HTTPHeaders(headers), body: Array(body.utf8),
                                  remoteAddress: "192.0.2.7")
            guard case .matched(_, let handler, let parameters) = router.match(method, path: request.path) else {
                return Response(status: .notFound)
            }
            request.pathParameters = parameters
            switch handler {
            case .sync(let body): return body(request)
            case .async(let body): return await body(request)
            case .deferred(let body): return await withCheckedContinuation { done in body(request, Responder { done.resume(returning: $0) }) }
            }
        }

        func register(_ app: App, token: String, type: String = "IOS", phone: String = BWMIServiceTests.phone) async -> Response {
            await call(.PUT, "/bwmi/\(app.key.text)/devices", #"{"deviceId":"\#(token)","type":"\#(type)","user":{"phone":"\#(phone)"}}"#)
        }

        func advance(by milliseconds: Int64) async throws {
            gateway.clock.advance(to: gateway.clock.now() + .milliseconds(milliseconds))
            try await gateway.scheduler.fireDueTimers()
            await gateway.dispatcher.waitUntilIdle()
        }

        func close() async { await gateway.close() }
    }

    static func json(_ response: Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    /// `waiting`: on a backend that answers no read without waiting, the acks are checked in a task, with the same answers.
    @Test("managed notifications: badge stamped per device, pending oldest first, an ack sends a badge-only update",
          arguments: [false, true])
    func managedLifecycle(waiting: Bool) async throws {
        let h = try await Harness(waiting: waiting)
        defer { Task { await h.close() } }
        let app = h.gateway.appA, token = h.gateway.accountA.productToken
        #expect(await h.register(app, token: "ios-token-1").status == .created)
        let first = await h.call(.POST, "/bwmi/\(app.key.text)/notifications",
                                 #"{"to":[{"deviceId":"ios-token-1"}],"text":"one","bid":"B1","faf":false}"#, token: token)
        #expect(first.status == .created)
        let firstNotification = try #require((Self.json(first)["notifications"] as? [[String: Any]])?.first)
        #expect(firstNotification["badge"] as? Int == 1)
        let nid1 = try #require(firstNotification["nid"] as? String)
        h.gateway.clock.advance(to: h.gateway.clock.now() + .milliseconds(5))
        let second = await h.call(.POST, "/bwmi/\(app.key.text)/notifications",
                                  #"{"to":[{"phone":"\#(Self.phone)"}],"text":"two","faf":false}"#, token: token)
        let secondNotification = try #require((Self.json(second)["notifications"] as? [[String: Any]])?.first)
        #expect(secondNotification["badge"] as? Int == 2)
        let nid2 = try #require(secondNotification["nid"] as? String)
        #expect(await eventually { h.gateway.push.sent.count == 2 })
        let pushed = h.gateway.push.sent.map(\.content.presentation)
        #expect(pushed.map(\.badge) == [1, 2])
        #expect(pushed.first?.bwmi == .managed(bid: "B1", sentAt: GatewayHarness.t0.milliseconds))
        #expect(h.gateway.push.sent.map { String($0.key.rawValue) } == [nid1, nid2])

        let pending = await h.call(.GET, "/bwmi/\(app.key.text)/devices/ios-token-1/notifications")
        let t0 = GatewayHarness.t0.milliseconds
        #expect(String(decoding: pending.body, as: UTF8.self)
                == #"{"ns":[["\#(nid1)","\#(t0)","one","B1"],["\#(nid2)","\#(t0 + 5)","two"]]}"#)

        let ack = await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nid1)","did":"ios-token-1","bid":"B1"}"#)
        #expect(ack.status == .created && ack.body.isEmpty)
        #expect(await eventually { h.gateway.push.sent.count == 3 })
        let update = try #require(h.gateway.push.sent.last)
        #expect(update.content.presentation.bwmi == .badgeOnly && update.content.presentation.badge == 1)
        // The ack is the delivery's read receipt.
        #expect(try h.gateway.count("SELECT count(*) FROM delivery_events WHERE delivery_id = \(nid1) AND kind = 'readReported'") == 1)
        let again = await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nid1)","did":"ios-token-1"}"#)
        #expect(again.status == .created)
        let after = await h.call(.GET, "/bwmi/\(app.key.text)/devices/ios-token-1/notifications")
        #expect(String(decoding: after.body, as: UTF8.self) == #"{"ns":[["\#(nid2)","\#(t0 + 5)","two"]]}"#)
        // Another app's base path: the device is unknown there.
        let other = await h.call(.PUT, "/bwmi/\(h.gateway.appB.key.text)/acks", #"{"nid":"\#(nid2)","did":"ios-token-1"}"#)
        #expect(other.status == .notFound)
        #expect(String(decoding: other.body, as: UTF8.self) == #"{"error":"no device with this token is registered for this app"}"#)
    }

    @Test("an ack is one durable write: the notification's row is acknowledged in its read receipt's commit")
    func ackIsOneWrite() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let app = h.gateway.appA, token = h.gateway.accountA.productToken
        _ = await h.register(app, token: "ios-token-8")
        let sent = await h.call(.POST, "/bwmi/\(app.key.text)/notifications", #"{"to":[{"deviceId":"ios-token-8"}],"text":"x","faf":false}"#,
                                token: token)
        let nid = try #require(((Self.json(sent)["notifications"] as? [[String: Any]])?.first)?["nid"] as? String)
        let second = await h.call(.POST, "/bwmi/\(app.key.text)/notifications", #"{"to":[{"deviceId":"ios-token-8"}],"text":"y","faf":false}"#,
                                  token: token)
        let nid2 = try #require(((Self.json(second)["notifications"] as? [[String: Any]])?.first)?["nid"] as? String)
        #expect(await eventually { h.gateway.push.sent.count == 2 })
        await h.gateway.dispatcher.waitUntilIdle()
        let jobs = { h.gateway.store.writerStatistics.committedJobs }
        let before = jobs()
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nid)","did":"ios-token-8"}"#).status == .created)
        #expect(jobs() == before + 1)
        #expect(try h.gateway.count("SELECT count(*) FROM bwmi_notifications WHERE delivery_id = \(nid) AND acked_at IS NOT NULL") == 1)
        #expect(try h.gateway.count("SELECT count(*) FROM delivery_events WHERE delivery_id = \(nid) AND kind = 'readReported'") == 1)
        #expect(await eventually { h.gateway.push.sent.count == 3 && h.service.badges.inProgress == 0 })
        #expect(h.gateway.push.sent.last?.content.presentation.badge == 1)
        #expect(jobs() == before + 1)   // the badge update writes nothing

        // The commit also counts what is left live (the badge update's count, read by no one else).
        let token8 = try #require(PushToken("ios-token-8")), key2 = try #require(Int64(nid2))
        let device = try #require(try h.gateway.store.bwmiDevice(app: app.key, token: token8))
        let write = BWMIAcknowledgementWrite(delivery: DeliveryKey(key2), device: device.deviceID,
                                             at: h.gateway.clock.now())
        #expect(try await h.gateway.scheduler.recordReceipt([.readReported(device.deviceID)], for: write.delivery,
                                                            from: Scheduler.ReceiptSender(app: app.key, recipient: .device(device.deviceID)),
                                                            acknowledgement: write) == .recorded)
        #expect(write.outcome == .acknowledged && write.liveCount == 0)
        #expect(jobs() == before + 2)
    }

    @Test("badge updates are no messages and coalesce per device: acks during a send get one more update, with the final count")
    func badgeUpdatesCoalesce() async throws {
        let badgePush = RecordingPushSender(hold: true)
        let h = try await Harness(badgePush: badgePush)
        defer { Task { await h.close() } }
        let app = h.gateway.appA, token = h.gateway.accountA.productToken
        _ = await h.register(app, token: "ios-token-7")
        var nids: [String] = []
        for text in ["one", "two", "three"] {
            let sent = await h.call(.POST, "/bwmi/\(app.key.text)/notifications",
                                    #"{"to":[{"deviceId":"ios-token-7"}],"text":"\#(text)","faf":false}"#, token: token)
            nids.append(try #require(((Self.json(sent)["notifications"] as? [[String: Any]])?.first)?["nid"] as? String))
        }
        let messagesBefore = try h.gateway.count("SELECT count(*) FROM messages")
        let deliveriesBefore = try h.gateway.count("SELECT count(*) FROM deliveries")
        // The first ack's update (count 2) is held in the push sender; the two acks meanwhile ask for one more.
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nids[0])","did":"ios-token-7"}"#).status == .created)
        #expect(await eventually { badgePush.waiting == 1 })
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nids[1])","did":"ios-token-7"}"#).status == .created)
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nids[2])","did":"ios-token-7"}"#).status == .created)
        #expect(badgePush.waiting == 1 && badgePush.sent.isEmpty)
        badgePush.release()
        #expect(await eventually { badgePush.sent.count == 2 && h.service.badges.inProgress == 0 })
        #expect(badgePush.sent.map(\.content.presentation.badge) == [2, 0])
        #expect(badgePush.sent.allSatisfy { $0.content.presentation.bwmi == .badgeOnly && $0.targets.map(\.token.text) == ["ios-token-7"] })
        // Each ack is still its delivery's read receipt; the updates made no message and no delivery.
        for nid in nids {
            #expect(try h.gateway.count("SELECT count(*) FROM delivery_events WHERE delivery_id = \(nid) AND kind = 'readReported'") == 1)
        }
        #expect(try h.gateway.count("SELECT count(*) FROM messages") == messagesBefore)
        #expect(try h.gateway.count("SELECT count(*) FROM deliveries") == deliveriesBefore)
        // The same ack again: 201, and no update asked for.
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nids[2])","did":"ios-token-7"}"#).status == .created)
        #expect(h.service.badges.inProgress == 0 && badgePush.sent.count == 2)
    }

    /// Takes batches (as the push simulator does), recording each.
    final class BatchRecorder: BatchPushSender {
        private let state = Mutex<(batches: [[PushRequest]], single: Int)>(([], 0))

        func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
            state.withLock { $0.single += 1 }
            return Dictionary(uniqueKeysWithValues: push.targets.map { ($0.deviceID, .accepted) })
        }

        func send(batch: [PushRequest]) async -> [[DeviceID: PushVerdict]] {
            state.withLock { $0.batches.append(batch) }
            return batch.map { push in Dictionary(uniqueKeysWithValues: push.targets.map { ($0.deviceID, .accepted) }) }
        }

        var batches: [[PushRequest]] { state.withLock { $0.batches } }
        var single: Int { state.withLock { $0.single } }
    }

    @Test("to a sender that takes batches, badge updates go in batches: each device's once, with its count")
    func badgeUpdatesInBatches() async throws {
        let badgePush = BatchRecorder()
        let h = try await Harness(badgePush: badgePush)
        defer { Task { await h.close() } }
        let app = h.gateway.appA, token = h.gateway.accountA.productToken
        let tokens = (1...4).map { "ios-token-b\($0)" }
        for device in tokens { _ = await h.register(app, token: device) }
        let to = tokens.map { #"{"deviceId":"\#($0)"}"# }.joined(separator: ",")
        var nids: [String: [String]] = [:]
        for text in ["one", "two"] {
            let sent = try Self.json(await h.call(.POST, "/bwmi/\(app.key.text)/notifications",
                                                  #"{"to":[\#(to)],"text":"\#(text)","faf":false}"#, token: token))
            for notification in try #require(sent["notifications"] as? [[String: Any]]) {
                nids[try #require(notification["deviceId"] as? String), default: []].append(try #require(notification["nid"] as? String))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for device in tokens {
                let nid = nids[device]?.first ?? ""
                group.addTask { #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nid)","did":"\#(device)"}"#).status == .created) }
            }
        }
        #expect(await eventually { badgePush.batches.joined().count == 4 && h.service.badges.inProgress == 0 })
        let updates = badgePush.batches.joined()
        #expect(Set(updates.flatMap { $0.targets.map(\.token.text) }) == Set(tokens))
        #expect(updates.allSatisfy { $0.content.presentation.bwmi == .badgeOnly && $0.content.presentation.badge == 1 })
        #expect(badgePush.single == 0)
    }

    @Test("badge-update bookkeeping: one update per device at a time, acks meanwhile ask for exactly one more; one sender per batch")
    func badgeBookkeeping() throws {
        let badges = BWMIBadgeUpdates()
        var generator = SystemRandomNumberGenerator()
        let app = App(key: .random(using: &generator), secret: AppSecret.random(using: &generator), name: "App",
                      account: .random(using: &generator), defaultMessageType: .default, createdAt: 0)
        func update(_ n: Int, count: Int? = 1) throws -> BWMIBadgeUpdates.Update {
            let device = try #require(DeviceID("00000000-0000-4000-8000-00000000000\(n)"))
            return BWMIBadgeUpdates.Update(device: BWMIDevice(deviceID: device, app: app.key, platform: .iOS,
                                                              token: PushToken("t\(n)")!, phone: nil, email: nil, active: true),
                                           app: app, liveCount: count)
        }
        let (a, b) = (try update(1), try update(2))
        #expect(badges.request(a))                           // start a sender
        #expect(!badges.request(a) && !badges.request(a))    // a's update is queued: one more after it
        #expect(!badges.request(b))                          // the sender about to run takes it too
        let first = badges.take()
        #expect(first.map(\.device.deviceID) == [a.device.deviceID, b.device.deviceID] && first.map(\.liveCount) == [1, 1])
        #expect(badges.take().isEmpty)
        #expect(badges.finished(a))                          // acks came in meanwhile: queued again, a sender to start
        #expect(!badges.finished(b))
        let second = badges.take()
        #expect(second.map(\.device.deviceID) == [a.device.deviceID] && second.map(\.liveCount) == [nil])  // read when sent
        #expect(!badges.finished(second[0]))                 // none since: done
        #expect(badges.inProgress == 0)
        #expect(badges.request(a))                           // a new ack starts a new sender
    }

    @Test("an ack that reaches the service before its notification's row is checked against the device's delivery in flight")
    func ackBeforeRow() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let app = h.gateway.appA, token = h.gateway.accountA.productToken
        _ = await h.register(app, token: "ios-token-5")
        _ = await h.register(app, token: "ios-token-6", phone: "+19883999902")
        let sent = await h.call(.POST, "/bwmi/\(app.key.text)/notifications", #"{"to":[{"deviceId":"ios-token-5"}],"text":"x","faf":false}"#,
                                token: token)
        let nid = try #require(((Self.json(sent)["notifications"] as? [[String: Any]])?.first)?["nid"] as? String)
        let device = try #require(try h.gateway.store.bwmiDevice(app: app.key, token: PushToken("ios-token-5")!))
        let row = try #require(try h.gateway.store.liveBWMINotifications(device: device, at: h.gateway.clock.now()).first)
        try await h.gateway.store.write { (db: Connection) throws(StoreError) in
            try db.run("DELETE FROM bwmi_notifications WHERE delivery_id = ?", [.integer(Int64(nid)!)])
        }
        // Another device cannot acknowledge it; this device can, and the row recorded afterwards stays acknowledged.
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nid)","did":"ios-token-6"}"#).status == .notFound)
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(nid)","did":"ios-token-5"}"#).status == .created)
        try await h.gateway.store.recordBWMINotifications([row])
        #expect(String(decoding: await h.call(.GET, "/bwmi/\(app.key.text)/devices/ios-token-5/notifications").body, as: UTF8.self)
                == #"{"ns":[]}"#)
    }

    @Test("managed notifications expire with their policy's lifetime (Default: the provider maximum, 28 days)")
    func expiry() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let app = h.gateway.appA, token = h.gateway.accountA.productToken
        _ = await h.register(app, token: "ios-token-2")
        _ = await h.call(.POST, "/bwmi/\(app.key.text)/notifications", #"{"to":[{"deviceId":"ios-token-2"}],"text":"x","faf":false}"#,
                         token: token)
        h.gateway.clock.advance(to: GatewayHarness.t0 + .seconds(28 * 86_400 - 1))
        #expect(String(decoding: await h.call(.GET, "/bwmi/\(app.key.text)/devices/ios-token-2/notifications").body, as: UTF8.self)
                != #"{"ns":[]}"#)
        h.gateway.clock.advance(to: GatewayHarness.t0 + .seconds(28 * 86_400))
        #expect(String(decoding: await h.call(.GET, "/bwmi/\(app.key.text)/devices/ios-token-2/notifications").body, as: UTF8.self)
                == #"{"ns":[]}"#)
    }

    /// appB's default type is Critical (30 s windows in the spec's policies).
    private func criticalToPhone(_ h: Harness) async throws -> Int64 {
        let reply = await h.gateway.submitJSON(GatewayHarness.request(token: h.gateway.accountB.productToken, """
            {"from":"Bank","to":[{"number":"\(Self.phone)"}],"body":{"content":"alert"},"appKey":"\(h.gateway.appB.key.text)"}
            """))
        guard reply.status == 200 else { throw HarnessError("send failed: \(reply.text)") }
        // The latest CM delivery (a badge update, sent after an ack's answer, may commit later).
        let rows = try h.gateway.rows("SELECT max(d.id) FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.api = 'cm'")
        guard case .integer(let id)? = rows.first?.first else { throw HarnessError("no delivery") }
        return id
    }

    @Test("trustPhones off: a Critical CM message to a BWMI device's phone goes by SMS at once")
    func untrustedPhoneIsSMS() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        _ = await h.register(h.gateway.appB, token: "ios-token-3")
        _ = try await criticalToPhone(h)
        #expect(await eventually { h.gateway.sms.sent.count == 1 })
        #expect(h.gateway.push.sent.isEmpty)
    }

    @Test("trustPhones on: acked within the window → no SMS ever; not acked → one SMS at the window, not before")
    func trustedPhoneCriticalFallback() async throws {
        let h = try await Harness()
        defer { Task { await h.close() } }
        let app = h.gateway.appB
        #expect(try await h.gateway.store.setBWMISettings(app: app.key, BWMIAppSettings(trustPhones: true)))
        _ = await h.register(app, token: "ios-token-4")

        let acked = try await criticalToPhone(h)
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        // The CM message asked for no presentation: a BWMI app's push gets BWMI's managed shape.
        #expect(h.gateway.push.sent.first?.content.presentation.bwmi == .managed(bid: nil, sentAt: h.gateway.clock.now().milliseconds))
        await h.gateway.dispatcher.waitUntilIdle()
        try await h.advance(by: 10_000)
        let ack = await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(acked)","did":"ios-token-4"}"#)
        #expect(ack.status == .created)
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(acked)","did":"ios-token-4"}"#).status == .created)
        try await h.advance(by: 60_000)
        #expect(h.gateway.sms.sent.isEmpty)

        let sentAt = h.gateway.clock.now()
        let unacked = try await criticalToPhone(h)
        #expect(await eventually { h.gateway.push.sent.filter { $0.key.rawValue == unacked }.count == 1 })
        await h.gateway.dispatcher.waitUntilIdle()
        h.gateway.clock.advance(to: sentAt + .milliseconds(29_999))
        try await h.gateway.scheduler.fireDueTimers()
        await h.gateway.dispatcher.waitUntilIdle()
        #expect(h.gateway.sms.sent.isEmpty)
        h.gateway.clock.advance(to: sentAt + .seconds(30))
        try await h.gateway.scheduler.fireDueTimers()
        await h.gateway.dispatcher.waitUntilIdle()
        #expect(h.gateway.sms.sent.map(\.key.rawValue) == [unacked])
        // An ack for a delivery that is not this device's phone's (or is final) is 404.
        #expect(await h.call(.PUT, "/bwmi/\(app.key.text)/acks", #"{"nid":"\#(unacked + 1000)","did":"ios-token-4"}"#).status == .notFound)
    }
}
