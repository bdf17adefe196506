import Foundation
import Testing
import TandemCore
@testable import TandemProviders

/// A registration's own APNs environment and topic (``PushTarget/apnsSandbox``, ``PushTarget/apnsTopic``),
/// and data-only pushes as background notifications, against `Tests/peers/apns_fake.py` — one fake serving
/// both environments: the sandbox URL is the fake's under `/sandbox`, which its log records as `prefix`.
@Suite("APNs: per-target environment and topic, background pushes")
struct APNsTargetRoutingTests {
    let harness: APNsFakeHarness

    init() async throws {
        harness = try await APNsFakeHarness(delayMilliseconds: 1)
    }

    func push(_ targets: [PushTarget], presentation: PushPresentation = PushPresentation(), policy: Policy = .specDefault) -> PushRequest {
        PushRequest(key: DeliveryKey(7), recipient: .device(targets[0].deviceID), targets: targets, policy: policy,
                    content: MessageContent(messageID: testGUID(), sender: "cospace", body: "fax_new", reference: nil,
                                            app: harness.app, presentation: presentation))
    }

    func target(_ token: String, sandbox: Bool? = nil, topic: String? = nil) -> PushTarget {
        PushTarget(deviceID: DeviceID(testGUID()), platform: .iOS, token: PushToken(token)!, apnsSandbox: sandbox, apnsTopic: topic)
    }

    @Test("each target goes to its own environment; a target that says nothing goes to the app's", arguments: [false, true])
    func environments(appSandbox: Bool) async throws {
        let sender = try harness.sender(credentials: harness.credentials(sandbox: appSandbox), sandboxURL: harness.url + "/sandbox")
        let targets = [target("ok-sandbox", sandbox: true), target("ok-production", sandbox: false), target("ok-app")]
        let verdicts = await sender.send(push(targets))
        #expect(verdicts.count == 3 && verdicts.values.allSatisfy { $0 == .accepted })
        let prefixes = Dictionary(try harness.requests().map { ($0["token"]?.string ?? "", $0["prefix"]?.string ?? "?") },
                                  uniquingKeysWith: { first, _ in first })
        #expect(prefixes == ["ok-sandbox": "sandbox", "ok-production": "", "ok-app": appSandbox ? "sandbox" : ""])
        await sender.shutdown()
    }

    @Test("a target's own topic replaces the app's in apns-topic")
    func topic() async throws {
        let sender = try harness.sender()
        _ = await sender.send(push([target("ok-voip", topic: APNsFakeHarness.topic + ".voip"), target("ok-plain")]))
        let topics = Dictionary(try harness.requests().map { ($0["token"]?.string ?? "", $0.header("apns-topic") ?? "") },
                                uniquingKeysWith: { first, _ in first })
        #expect(topics == ["ok-voip": APNsFakeHarness.topic + ".voip", "ok-plain": APNsFakeHarness.topic])
        await sender.shutdown()
    }

    @Test("a data-only presentation is a background push: push type background, priority 5, the custom data alone")
    func background() async throws {
        var presentation = PushPresentation()
        presentation.dataOnly = true
        presentation.customData = [TandemCore.JSONMember(key: "owner", value: .string("u")),
                                   TandemCore.JSONMember(key: "message", value: .string("fax_new")),
                                   TandemCore.JSONMember(key: "page_count", value: .number("2"))]
        let sender = try harness.sender()
        // An OTP's policy says priority 10; a background push is 5 whatever the policy says (Apple's rule).
        #expect(await sender.send(push([target("ok-bg")], presentation: presentation, policy: .specOTP)).values.first == .accepted)
        let request = try #require(try harness.requests().first)
        #expect(request["violation"] == .null)
        #expect(request.header("apns-push-type") == "background" && request.header("apns-priority") == "5")
        let payload = try #require(request["payload"])
        #expect(payload["aps"]?["content-available"]?.int == 1 && payload["aps"]?["alert"] == nil)
        #expect(payload["owner"]?.string == "u" && payload["page_count"]?.int == 2 && payload["messageId"] == nil)
        await sender.shutdown()
    }
}
