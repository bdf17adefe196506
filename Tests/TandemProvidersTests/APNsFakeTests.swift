import Foundation
import Testing
import TandemCore
@testable import TandemProviders

/// `APNsSender` against `Tests/peers/apns_fake.py`: HTTP/2 over TLS on Python's `h2`, provider tokens
/// verified by PyJWT with the `.p8`'s public key.
@Suite("APNs against a local HTTP/2 fake")
struct APNsFakeTests {
    let harness: APNsFakeHarness

    init() async throws {
        harness = try await APNsFakeHarness()
    }

    @Test("hundreds of pushes share one provider token and one connection, as concurrent streams")
    func oneTokenPerRefreshPeriodAndMultiplexing() async throws {
        let sender = try harness.sender()
        let pushes = (0..<300).map { harness.push(["ok\($0)"], key: Int64(1_000 + $0)) }
        let verdicts = await sendAll(pushes[...], with: sender)
        #expect(verdicts.count == 300)
        #expect(verdicts.values.allSatisfy { $0 == .accepted })
        var requests = try harness.requests()
        #expect(requests.count == 300)
        #expect(requests.allSatisfy { $0["violation"] == .null })
        #expect(Set(requests.compactMap { $0["jwt"]?.string }).count == 1, "one JWT for 300 pushes")
        #expect(Set(requests.compactMap { $0["conn"]?.int }).count == 1, "one connection")
        let mostConcurrent = requests.compactMap { $0["concurrent"]?.int }.max() ?? 0
        #expect(mostConcurrent > 1 && mostConcurrent <= 100, "streams overlapped on the connection, within maxConcurrentStreams (most at once: \(mostConcurrent))")
        #expect(sender.statistics.http.connectionsOpened == 1)
        #expect(sender.statistics.mostRequestsInFlight > 1)
        #expect(sender.statistics.providerTokensSigned == 1)

        // 41 minutes later (past the 40-minute refresh): one new token for the next 300.
        harness.clock.advance(by: .seconds(41 * 60))
        await sendAll(pushes.prefix(150), with: sender)
        harness.clock.advance(by: .seconds(60))
        await sendAll(pushes.suffix(150), with: sender)
        requests = try harness.requests()
        #expect(requests.count == 600)
        #expect(Set(requests.compactMap { $0["jwt"]?.string }).count == 2, "exactly one more JWT after 41 minutes")
        #expect(Set(requests.suffix(300).compactMap { $0["iat"]?.int }).count == 1)
        #expect(sender.statistics.providerTokensSigned == 2)
        await sender.shutdown()
    }

    @Test("every header is what the policy says: OTP expires in 30 s at priority 10")
    func otpHeaders() async throws {
        let sender = try harness.sender()
        let messageID = testGUID()
        let push = harness.push(["ok-a", "ok-b"], key: 7, policy: .specOTP, messageID: messageID)
        let now = harness.clock.now()
        #expect(await sender.send(push).values.allSatisfy { $0 == .accepted })
        let requests = try harness.requests()
        try #require(requests.count == 2)
        for request in requests {
            let target = try #require(push.targets.first { $0.token.text == request["token"]?.string })
            #expect(request["violation"] == .null)
            #expect(request.header("apns-expiration") == String(now.milliseconds / 1_000 + 30))
            #expect(request.header("apns-priority") == "10")
            #expect(request.header("apns-push-type") == "alert")
            #expect(request.header("apns-topic") == APNsFakeHarness.topic)
            #expect(request.header("apns-collapse-id") == messageID.text)
            #expect(request.header("apns-id") == APNsNotification.apnsID(for: DeliveryKey(7), device: target.deviceID))
            #expect(request["authority"]?.string == "127.0.0.1:\(harness.fake.port)", "production host")
            let payload = try #require(request["payload"])
            #expect(payload["aps"]?["alert"]?["body"]?.string == "Your code is 123456")
            #expect(payload["aps"]?["alert"]?["title"]?.string == "Tandem")
            #expect(payload["aps"]?["sound"]?.string == "default")
            #expect(payload["aps"]?["mutable-content"]?.int == 1)
            #expect(payload["aps"]?["badge"] == nil)
            #expect(payload["messageId"]?.string == messageID.text)
            #expect(payload["updateId"]?.string == "7")
        }
        #expect(Set(requests.compactMap { $0.header("apns-id") }).count == 2, "one apns-id per device")
        await sender.shutdown()
    }

    @Test("a Default push is stored for the provider maximum (30 days) at priority 5, on the sandbox host when asked")
    func defaultHeadersOnSandbox() async throws {
        let sandboxLog = harness.directory.path + "/sandbox.jsonl"
        let sandbox = try await harness.anotherFake(log: sandboxLog)
        let sandboxURL = "https://127.0.0.1:\(sandbox.port)"
        let sender = try harness.sender(credentials: harness.credentials(sandbox: true), sandboxURL: sandboxURL)
        let now = harness.clock.now()
        #expect(await sender.send(harness.push(["ok-default"], policy: .specDefault)).values.first == .accepted)
        #expect(try harness.requests().isEmpty, "nothing went to production")
        let request = try #require(try jsonLines(at: sandboxLog).first)
        #expect(request["violation"] == .null)
        #expect(request.header("apns-expiration") == String(now.milliseconds / 1_000 + 30 * 24 * 3600))
        #expect(request.header("apns-priority") == "5")
        #expect(request["authority"]?.string == "127.0.0.1:\(sandbox.port)")

        let production = try harness.sender(sandboxURL: sandboxURL)
        #expect(await production.send(harness.push(["ok-production"])).values.first == .accepted)
        #expect(try harness.requests().count == 1 && jsonLines(at: sandboxLog).count == 1)
        await sender.shutdown()
        await production.shutdown()
        sandbox.stop()
    }

    @Test("answers map to verdicts: dead tokens, retries, provider-token trouble, other refusals")
    func outcomes() async throws {
        let sender = try harness.sender()
        let tokens = ["ok-1", "bad-1", "gone-1", "notopic-1", "busy-1", "fail-1", "flaky-1", "expired-1",
                      "toomany-1", "refuse-1"]
        // Default policy: the retry window is the provider maximum, so only maxAttempts (8) ends retries.
        let push = harness.push(tokens, policy: .specDefault)
        let verdicts = await sender.send(push)
        func verdict(_ token: String) -> PushVerdict? {
            push.targets.first { $0.token.text == token }.flatMap { verdicts[$0.deviceID] }
        }
        #expect(verdict("ok-1") == .accepted)
        #expect(verdict("bad-1") == .rejected(.tokenDead))
        #expect(verdict("gone-1") == .rejected(.tokenDead))
        #expect(verdict("notopic-1") == .rejected(.tokenDead))
        #expect(verdict("busy-1") == .rejected(.transient))
        #expect(verdict("fail-1") == .rejected(.transient))
        #expect(verdict("flaky-1") == .accepted)
        #expect(verdict("expired-1") == .accepted)
        #expect(verdict("toomany-1") == .rejected(.other))
        #expect(verdict("refuse-1") == .rejected(.other))
        #expect(verdicts.count == tokens.count)

        let requests = try harness.requests()
        #expect(requests.allSatisfy { $0["violation"] == .null })
        func attempts(_ token: String) -> [[String: JSONValue]] { requests.filter { $0["token"]?.string == token } }
        #expect(attempts("busy-1").count == 8, "429 retried up to maxAttempts")
        #expect(attempts("fail-1").count == 8, "500 retried up to maxAttempts")
        #expect(attempts("flaky-1").count == 2)
        for once in ["ok-1", "bad-1", "gone-1", "notopic-1", "toomany-1", "refuse-1"] {
            #expect(attempts(once).count == 1, "\(once) is not retried")
        }
        let expired = attempts("expired-1")
        #expect(expired.map { $0["status"]?.int } == [403, 200])
        #expect(Set(expired.compactMap { $0["jwt"]?.string }).count == 2, "a new provider token after ExpiredProviderToken")
        #expect(sender.statistics.providerTokensSigned == 2)
        #expect(harness.logs.all.contains { $0.contains("TooManyProviderTokenUpdates") && $0.contains("\"level\":\"error\"") })
        await sender.shutdown()
    }

    @Test("retries stop at the end of an OTP's 30 s lifetime, and the backoff grows")
    func retriesEndWithTheLifetime() async throws {
        let sender = try harness.sender(adjust: { $0.retry = PushRetryPolicy(maxAttempts: 100, baseDelay: .seconds(1), maxDelay: .seconds(60)) })
        let start = harness.clock.now()
        #expect(await sender.send(harness.push(["busy-otp"], policy: .specOTP)).values.first == .rejected(.transient))
        let attempts = try harness.requests().count
        let sleeps = harness.clock.sleeps
        #expect(attempts >= 3 && attempts < 10, "attempts: \(attempts)")
        #expect(sleeps.count == attempts - 1)
        #expect(harness.clock.now() < start + .seconds(30), "no retry starts after the lifetime")
        #expect(sleeps.last! > sleeps.first!, "exponential backoff: \(sleeps)")
        await sender.shutdown()
    }

    @Test("pushes without an app or without APNs credentials are refused without a request")
    func missingCredentials() async throws {
        let sender = try harness.sender()
        let noApp = harness.push(["ok-x"], app: .some(nil))
        #expect(await sender.send(noApp).values.first == .rejected(.other))
        let unknownApp = harness.push(["ok-y"], app: AppKey(testGUID()))
        #expect(await sender.send(unknownApp).values.first == .rejected(.other))
        let missingKey = try harness.sender(credentials: harness.credentials(keySource: .file("/nonexistent/AuthKey.p8")))
        #expect(await missingKey.send(harness.push(["ok-z"])).values.first == .rejected(.other))
        #expect(try harness.requests().isEmpty)
        #expect(harness.logs.all.contains { $0.contains("no APNs credentials") })
        #expect(harness.logs.all.contains { $0.contains("cannot read /nonexistent/AuthKey.p8") })
        await sender.shutdown()
        await missingKey.shutdown()
    }

    @Test("the .p8 may come from an environment variable")
    func keyFromEnvironment() async throws {
        let pem = try String(contentsOfFile: harness.keyPath, encoding: .utf8)
        let sender = try harness.sender(credentials: harness.credentials(keySource: .environment("ACME_APNS_KEY")),
                                        environment: { $0 == "ACME_APNS_KEY" ? pem : nil })
        #expect(await sender.send(harness.push(["ok-env"])).values.first == .accepted)
        #expect(try harness.requests().first?["violation"] == .null)
        await sender.shutdown()
    }

    @Test("a long multibyte text is cut to fit 4 KB and the fake accepts it")
    func longTextIsTruncated() async throws {
        let sender = try harness.sender()
        let body = String(repeating: "Grüße 👋🏽 из Москвы — ", count: 400)
        #expect(await sender.send(harness.push(["ok-long"], body: body)).values.first == .accepted)
        let request = try #require(try harness.requests().first)
        #expect(request["violation"] == .null)
        let size = try #require(request["payload_size"]?.int)
        #expect(size <= 4_096 && size > 4_000)
        let sent = try #require(request["payload"]?["aps"]?["alert"]?["body"]?.string)
        #expect(sent.hasSuffix("…"))
        #expect(body.hasPrefix(String(sent.dropLast())))
        await sender.shutdown()
    }

    @Test("a cancelled push sends nothing and reports nothing")
    func cancelledPush() async throws {
        let sender = try harness.sender()
        let push = harness.push(["ok-cancelled"])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await sender.send(push)
        }
        #expect(await task.value.isEmpty)
        #expect(try harness.requests().isEmpty)
        await sender.shutdown()
    }

    @Test("logs mask the MSISDN and never carry device tokens, provider tokens or keys")
    func logsHoldNoSecrets() async throws {
        let sender = try harness.sender()
        _ = await sender.send(harness.push(["gone-0123456789abcdef", "toomany-0123456789abcdef"]))
        let lines = harness.logs.all
        #expect(!lines.isEmpty)
        let jwts = Set(try harness.requests().compactMap { $0["jwt"]?.string })
        for line in lines {
            #expect(!line.contains("0123456789abcdef"))
            #expect(!line.contains("+31612345678"))
            #expect(!line.contains("PRIVATE KEY"))
            #expect(jwts.allSatisfy { !line.contains($0) })
        }
        #expect(lines.contains { $0.contains("+3161****678") })
        await sender.shutdown()
    }

    /// Sends `pushes` concurrently; the merged verdicts.
    @discardableResult
    private func sendAll(_ pushes: ArraySlice<PushRequest>, with sender: APNsSender) async -> [DeviceID: PushVerdict] {
        await withTaskGroup(of: [DeviceID: PushVerdict].self) { group in
            for push in pushes { group.addTask { await sender.send(push) } }
            return await group.reduce(into: [DeviceID: PushVerdict]()) { $0.merge($1) { a, _ in a } }
        }
    }
}
