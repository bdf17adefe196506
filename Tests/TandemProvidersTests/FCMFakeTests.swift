import Foundation
import Testing
import TandemCore
@testable import TandemProviders

/// `FCMSender` against `Tests/peers/fcm_fake.py`: an OAuth2 token endpoint that verifies the RS256
/// assertion with PyJWT, and an FCM v1 send endpoint answering by registration-token prefix.
@Suite("FCM against a local fake")
struct FCMFakeTests {
    let harness: FCMFakeHarness

    init() async throws {
        harness = try await FCMFakeHarness()
    }

    private func sendAll(_ pushes: [PushRequest], with sender: FCMSender) async -> [DeviceID: PushVerdict] {
        await withTaskGroup(of: [DeviceID: PushVerdict].self) { group in
            for push in pushes { group.addTask { await sender.send(push) } }
            return await group.reduce(into: [DeviceID: PushVerdict]()) { $0.merge($1) { a, _ in a } }
        }
    }

    @Test("concurrent pushes share one access token until shortly before it expires")
    func oneTokenFetchShared() async throws {
        let sender = try harness.sender()
        let verdicts = await sendAll((0..<40).map { harness.push(["ok\($0)"], key: Int64($0)) }, with: sender)
        #expect(verdicts.count == 40 && verdicts.values.allSatisfy { $0 == .accepted })
        var tokens = try harness.tokenRequests()
        #expect(tokens.count == 1, "one fetch shared by 40 concurrent pushes")
        let claims = try #require(tokens.first?["claims"])
        #expect(claims["iss"]?.string == FCMFakeHarness.clientEmail)
        #expect(claims["scope"]?.string == "https://www.googleapis.com/auth/firebase.messaging")
        #expect(claims["aud"]?.string == harness.url + "/token")
        #expect(claims["exp"]?.int == claims["iat"]?.int.map { $0 + 3_600 })
        #expect(claims["iat"]?.int == Int(harness.clock.now().milliseconds / 1_000))
        #expect(tokens.first?["header"]?["kid"]?.string == FCMFakeHarness.keyID)
        #expect(try harness.requests().allSatisfy { $0["violation"] == .null })
        #expect(Set(try harness.sends().compactMap { $0["bearer"]?.string }).count == 1)

        harness.clock.advance(by: .seconds(54 * 60))
        _ = await sender.send(harness.push(["ok-54"]))
        #expect(try harness.tokenRequests().count == 1, "still valid 54 minutes later")
        harness.clock.advance(by: .seconds(2 * 60))
        _ = await sendAll((0..<10).map { harness.push(["ok-56-\($0)"]) }, with: sender)
        tokens = try harness.tokenRequests()
        #expect(tokens.count == 2, "refreshed 5 minutes before the hour")
        #expect(try harness.sends().suffix(10).allSatisfy { $0["bearer"]?.string == tokens.last?["access_token"]?.string })
        await sender.shutdown()
    }

    @Test("the message carries data strings, the notification and android priority, ttl and collapse key")
    func messageShape() async throws {
        let sender = try harness.sender()
        let messageID = testGUID()
        #expect(await sender.send(harness.push(["ok-shape"], key: 77, policy: .specOTP, messageID: messageID)).values.first == .accepted)
        _ = await sender.send(harness.push(["ok-default"], key: 78, policy: .specDefault))
        let sends = try harness.sends()
        try #require(sends.count == 2)
        let otp = try #require(sends[0]["message"])
        #expect(otp["token"]?.string == "ok-shape")
        #expect(otp["data"] == .object(["messageId": .string(messageID.text), "updateId": .string("77"),
                                        "sender": .string("Tandem"), "body": .string("Your code is 123456")]))
        #expect(otp["notification"] == .object(["title": .string("Tandem"), "body": .string("Your code is 123456")]))
        #expect(otp["android"] == .object(["priority": .string("HIGH"), "ttl": .string("30s"),
                                           "collapse_key": .string(messageID.text)]))
        let standard = try #require(sends[1]["message"])
        #expect(standard["android"]?["priority"]?.string == "NORMAL")
        #expect(standard["android"]?["ttl"]?.string == "2419200s", "the provider maximum: 28 days")
        #expect(sends.allSatisfy { $0["violation"] == .null && $0["project"]?.string == FCMFakeHarness.projectID })
        await sender.shutdown()
    }

    @Test("errors map by FCM error code; Retry-After is honoured; a revoked access token is replaced once")
    func outcomes() async throws {
        let sender = try harness.sender()
        let tokens = ["ok-1", "unreg-1", "invalid-1", "quota-1", "internal-1", "down-1", "mismatch-1",
                      "thirdparty-1", "revoke-1"]
        let push = harness.push(tokens, policy: .specDefault)
        let verdicts = await sender.send(push)
        func verdict(_ token: String) -> PushVerdict? {
            push.targets.first { $0.token.text == token }.flatMap { verdicts[$0.deviceID] }
        }
        #expect(verdict("ok-1") == .accepted)
        #expect(verdict("unreg-1") == .rejected(.tokenDead))
        #expect(verdict("invalid-1") == .rejected(.tokenDead))
        #expect(verdict("quota-1") == .accepted)
        #expect(verdict("internal-1") == .accepted)
        #expect(verdict("down-1") == .rejected(.transient))
        #expect(verdict("mismatch-1") == .rejected(.other))
        #expect(verdict("thirdparty-1") == .rejected(.other))
        #expect(verdict("revoke-1") == .accepted)
        #expect(verdicts.count == tokens.count)

        let sends = try harness.sends()
        #expect(sends.allSatisfy { $0["violation"] == .null })
        func attempts(_ token: String) -> [[String: JSONValue]] { sends.filter { $0["token"]?.string == token } }
        #expect(attempts("quota-1").map { $0["status"]?.int } == [429, 200])
        #expect(attempts("internal-1").map { $0["status"]?.int } == [500, 200])
        #expect(attempts("down-1").count == 8, "retried up to maxAttempts")
        for once in ["ok-1", "unreg-1", "invalid-1", "mismatch-1", "thirdparty-1"] {
            #expect(attempts(once).count == 1, "\(once) is not retried")
        }
        let revoked = attempts("revoke-1")
        #expect(revoked.map { $0["status"]?.int } == [401, 200])
        #expect(Set(revoked.compactMap { $0["bearer"]?.string }).count == 2)
        #expect(try harness.tokenRequests().count == 2, "one new access token, shared")
        #expect(harness.clock.sleeps.contains(.seconds(1)), "QUOTA_EXCEEDED's Retry-After: 1")
        #expect(harness.clock.sleeps.filter { $0 == .seconds(2) }.count >= 7, "UNAVAILABLE's Retry-After: 2")
        await sender.shutdown()
    }

    @Test("an OTP is retried only within its 30 s, and a retry's ttl is what is left")
    func otpRetries() async throws {
        let sender = try harness.sender(adjust: { $0.retry.maxAttempts = 100 })
        let push = harness.push(["quota-otp", "down-otp"], policy: .specOTP)
        let verdicts = await sender.send(push)
        #expect(verdicts[push.targets[0].deviceID] == .accepted)
        #expect(verdicts[push.targets[1].deviceID] == .rejected(.transient))
        let sends = try harness.sends()
        let quota = sends.filter { $0["token"]?.string == "quota-otp" }
        // The two targets share the test clock, which the other target's back-off sleeps move: the first
        // attempt's ttl is what was left of the 30 s when it went out, and the retry's is shorter still.
        let firstTTL = try #require(quota.first?["message"]?["android"]?["ttl"]?.string.flatMap { Int($0.dropLast()) })
        let retriedTTL = try #require(quota.last?["message"]?["android"]?["ttl"]?.string.flatMap { Int($0.dropLast()) })
        #expect(firstTTL <= 30 && firstTTL > 0)
        #expect(quota.count == 2 && retriedTTL < firstTTL)
        let down = sends.filter { $0["token"]?.string == "down-otp" }
        #expect(down.count >= 2 && down.count <= 15, "Retry-After: 2 within 30 s: \(down.count) attempts")
    }

    @Test("a refused assertion fails the app's pushes, and is not asked again for a minute")
    func refusedAssertion() async throws {
        let wrongAccount = harness.directory.path + "/wrong.json"
        try harness.writeServiceAccount(to: wrongAccount, clientEmail: "someone-else@example.iam.gserviceaccount.com")
        let sender = try harness.sender(serviceAccount: wrongAccount)
        #expect(await sender.send(harness.push(["ok-a"])).values.first == .rejected(.other))
        #expect(await sender.send(harness.push(["ok-b"])).values.first == .rejected(.other))
        #expect(try harness.tokenRequests().count == 1)
        #expect(try harness.sends().isEmpty)
        #expect(harness.logs.all.contains { $0.contains("invalid_grant") && $0.contains("\"level\":\"error\"") })
        harness.clock.advance(by: .seconds(61))
        _ = await sender.send(harness.push(["ok-c"]))
        #expect(try harness.tokenRequests().count == 2)
        await sender.shutdown()
    }

    @Test("no app, no FCM credentials or an unusable service account: refused without a request")
    func missingCredentials() async throws {
        let sender = try harness.sender()
        #expect(await sender.send(harness.push(["ok-x"], app: .some(nil))).values.first == .rejected(.other))
        #expect(await sender.send(harness.push(["ok-y"], app: AppKey(testGUID()))).values.first == .rejected(.other))
        let broken = try harness.directory.write(Array(#"{"type":"service_account"}"#.utf8), to: "broken.json")
        let brokenSender = try harness.sender(serviceAccount: broken)
        #expect(await brokenSender.send(harness.push(["ok-z"])).values.first == .rejected(.other))
        let missing = try harness.sender(serviceAccount: "/nonexistent/account.json")
        #expect(await missing.send(harness.push(["ok-w"])).values.first == .rejected(.other))
        #expect(try harness.requests().isEmpty)
        #expect(harness.logs.all.contains { $0.contains("project_id is missing") })
        for sender in [sender, brokenSender, missing] { await sender.shutdown() }
    }

    @Test("a long multibyte text is cut so data and notification fit 4 KB together")
    func longText() async throws {
        let sender = try harness.sender()
        let body = String(repeating: "Grüße 👋🏽 из Москвы — ", count: 400)
        #expect(await sender.send(harness.push(["ok-long"], body: body)).values.first == .accepted)
        let send = try #require(try harness.sends().first)
        #expect(send["violation"] == .null)
        let size = try #require(send["payload_size"]?.int)
        #expect(size <= 4_096 && size > 3_900)
        let sent = try #require(send["message"]?["data"]?["body"]?.string)
        #expect(sent.hasSuffix("…") && body.hasPrefix(String(sent.dropLast())))
        #expect(send["message"]?["notification"]?["body"]?.string == sent)
        await sender.shutdown()
    }

    @Test("a cancelled push sends nothing and reports nothing")
    func cancelled() async throws {
        let sender = try harness.sender()
        let push = harness.push(["ok-cancelled"])
        let verdicts = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await sender.send(push)
        }.value
        #expect(verdicts.isEmpty)
        #expect(try harness.requests().isEmpty)
        await sender.shutdown()
    }
}
