import Foundation
import Synchronization
import TandemCore
import TandemEngine
import TandemStore
import TandemTestSupport
import Testing
@testable import TandemAPI

/// A webhook receiver that fails the first `failures` posts with 503, then answers 204.
final class FlakyReceiver: WebhookPoster {
    private let state = Mutex<(remaining: Int, posts: [(String, String, [UInt8])])>((0, []))

    init(failures: Int) { state.withLock { $0.remaining = failures } }

    func post(url: String, contentType: String, body: [UInt8]) async -> WebhookResult {
        state.withLock { state in
            state.posts.append((url, contentType, body))
            guard state.remaining > 0 else { return .delivered(status: 204) }
            state.remaining -= 1
            return .failed(reason: "HTTP 503", retryAfter: nil)
        }
    }

    var posts: [(url: String, contentType: String, body: [UInt8])] { state.withLock { $0.posts.map { ($0.0, $0.1, $0.2) } } }
}

@Suite("Status reports")
struct StatusReportTests {
    @Test("a receiver that fails twice then succeeds gets exactly one report per final status, retried with backoff")
    func retriesUntilDelivered() async throws {
        let h = try await GatewayHarness()
        #expect(try await h.store.setWebhook(account: h.accountA.productToken, url: "http://127.0.0.1:9/dlr", format: .json))
        let reply = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, CMGatewayServiceTests.msg(
            to: ["0031612345678"], extra: #""allowedChannels":["Push"],"reference":"r-1""#)))
        #expect(reply.lines.first?["status"] as? String == "Accepted")
        // Account B has no webhook: its final statuses queue nothing.
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountB.productToken, CMGatewayServiceTests.msg(
            to: ["0031612345678"], extra: #""allowedChannels":["Push"]"#)))
        #expect(try h.count("SELECT count(*) FROM outbox") == 1)

        let outbox = SQLiteOutbox(store: h.store)
        #expect(try await outbox.nextDue() == GatewayHarness.t0)
        let receiver = FlakyReceiver(failures: 2)
        let schedule = RetrySchedule(initialDelay: .seconds(1), maximumDelay: .seconds(60), giveUpAfter: .seconds(3_600), jitter: 0)
        let relay = OutboxRelay(store: SQLiteOutbox(store: h.store), poster: receiver, clock: h.clock,
                                encode: CMStatusReportEncoder.encode,
                                configuration: OutboxRelay.Configuration(schedule: schedule))
        #expect(try await relay.runOnce().rescheduled == 1)
        #expect(try await relay.runOnce().attempted == 0)  // not due before its backoff
        h.clock.advance(to: GatewayHarness.t0 + .seconds(1))
        #expect(try await relay.runOnce().rescheduled == 1)
        h.clock.advance(to: GatewayHarness.t0 + .milliseconds(2_999))
        #expect(try await relay.runOnce().attempted == 0)  // second backoff is 2 s
        h.clock.advance(to: GatewayHarness.t0 + .seconds(3))
        #expect(try await relay.runOnce().delivered == 1)
        h.clock.advance(to: GatewayHarness.t0 + .seconds(3_600))
        #expect(try await relay.runOnce().attempted == 0)

        #expect(receiver.posts.count == 3)
        #expect(Set(receiver.posts.map(\.body)).count == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(receiver.posts[2].body)) as? [String: Any])
        let msg = try #require((report["messages"] as? [String: Any])?["msg"] as? [String: Any])
        #expect(msg["to"] as? String == "0031612345678")
        #expect(msg["reference"] as? String == "r-1")
        #expect((msg["status"] as? [String: Any])?["code"] as? String == "1")
        #expect(msg["tandemStatus"] as? String == "Rejected")
        #expect(receiver.posts[2].url == "http://127.0.0.1:9/dlr")
        #expect(try h.rows("SELECT attempts, delivered_at IS NOT NULL, last_error FROM outbox") == [[.integer(3), .integer(1), .null]])
        #expect(try await outbox.nextDue() == nil)  // nothing pending: no row, not an error
        await h.close()
    }

    @Test("a report that keeps failing is abandoned after giveUpAfter, with its last error")
    func abandons() async throws {
        let h = try await GatewayHarness()
        #expect(try await h.store.setWebhook(account: h.accountA.productToken, url: "http://127.0.0.1:9/dlr", format: .xml))
        _ = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, CMGatewayServiceTests.msg(
            to: ["0031612345678"], extra: #""allowedChannels":["Push"]"#)))
        let receiver = FlakyReceiver(failures: 1_000)
        let relay = OutboxRelay(store: SQLiteOutbox(store: h.store), poster: receiver, clock: h.clock,
                                encode: CMStatusReportEncoder.encode,
                                configuration: OutboxRelay.Configuration(schedule: RetrySchedule(
                                    initialDelay: .seconds(10), maximumDelay: .seconds(10), giveUpAfter: .seconds(25), jitter: 0)))
        var attempts = 0
        for step in 0..<10 {
            h.clock.advance(to: GatewayHarness.t0 + .seconds(10 * step))
            attempts += try await relay.runOnce().attempted
        }
        #expect(attempts == 3)
        #expect(try h.rows("SELECT attempts, abandoned_at IS NOT NULL, last_error FROM outbox") == [[.integer(3), .integer(1), .text("HTTP 503")]])
        #expect(receiver.posts.first.map { $0.contentType.hasPrefix("application/xml") } == true)
        let xml = String(decoding: receiver.posts.first?.body ?? [], as: UTF8.self)
        #expect(xml.contains("<CODE>1</CODE>"))
        await h.close()
    }

    @Test("RetrySchedule: doubling from the initial delay, capped, jittered within bounds, Retry-After honoured")
    func schedule() {
        let s = RetrySchedule(initialDelay: .seconds(5), maximumDelay: .seconds(60), giveUpAfter: .seconds(1_000), jitter: 0.2)
        let t = Timestamp(milliseconds: 0)
        #expect(s.nextAttempt(after: 1, now: t, queuedAt: t, unit: 0.5) == Timestamp(milliseconds: 5_000))
        #expect(s.nextAttempt(after: 3, now: t, queuedAt: t, unit: 0.5) == Timestamp(milliseconds: 20_000))
        #expect(s.nextAttempt(after: 10, now: t, queuedAt: t, unit: 0.5) == Timestamp(milliseconds: 60_000))
        #expect(s.nextAttempt(after: 1, now: t, queuedAt: t, unit: 0) == Timestamp(milliseconds: 4_000))
        #expect(s.nextAttempt(after: 1, now: t, queuedAt: t, unit: 1) == Timestamp(milliseconds: 6_000))
        #expect(s.nextAttempt(after: 1, now: t, queuedAt: t, unit: 0.5, retryAfter: .seconds(30)) == Timestamp(milliseconds: 30_000))
        #expect(s.nextAttempt(after: 1, now: Timestamp(milliseconds: 996_000), queuedAt: t, unit: 0.5) == nil)
    }
}
