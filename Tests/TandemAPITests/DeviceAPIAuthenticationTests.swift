import Foundation
import Testing
import TandemCore
import TandemHTTP
@testable import TandemAPI

@Suite("Device API: request requirements (MAC, User-Agent, DeviceID)")
struct DeviceAPIAuthenticationTests {
    @Test("a request signed as the SDKs sign it is accepted; the configured host and the Host header both work")
    func signedRequests() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA)
        let configuredHost = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: device)
        #expect(configuredHost.status == 200)
        #expect(configuredHost.json["DeviceID"] as? String == device.text)
        let hostHeader = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: device,
                                      authorization: h.authorization(h.appA, method: "GET", target: "/v1.0/deviceregistrations",
                                                                     host: "127.0.0.1:8080"))
        #expect(hostHeader.status == 200)
        let otherHost = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: device,
                                     authorization: h.authorization(h.appA, method: "GET", target: "/v1.0/deviceregistrations",
                                                                    host: "evil.example.com"))
        #expect(otherHost.status == 401)
    }

    @Test("a target signed before percent-encoding (the SDKs' habit) is accepted, as is the encoded one")
    func decodedTarget() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA)
        let encoded = "/v1.0/messages?$filter=Sender%20eq%20'A%20B'"
        let decoded = "/v1.0/messages?$filter=Sender eq 'A B'"
        for signed in [encoded, decoded] {
            let reply = await h.call(.GET, encoded, app: h.appA, device: device,
                                     authorization: h.authorization(h.appA, method: "GET", target: signed))
            #expect(reply.status == 200, "signed \(signed): \(reply.text)")
        }
    }

    @Test("missing, garbled, unknown-key, wrong-secret, wrong-method and stale signatures are 401 with a reason")
    func refusedSignatures() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let target = "/v1.0/deviceregistrations"
        let now = h.clock.now().milliseconds / 1_000
        let wrongSecret = MACAuthentication.signature(secret: "not-the-secret", method: "POST", target: target,
                                                      host: DeviceAPIHarness.host, timestamp: now)
        let cases: [(String?, String)] = [
            (nil, "missing"),
            ("Bearer abc", "malformed"),
            ("MAC kid=\"\(h.appA.key.text)\" ts=\"\(now)\"", "mac is missing"),
            ("MAC kid=\"\(h.appA.key.text)\" ts=\"yesterday\" mac=\"x\"", "ts must be unix seconds"),
            ("MAC kid=\(h.appA.key.text) ts=\"\(now)\" mac=\"x\"", "must be quoted"),
            ("MAC kid=\"00000000-0000-0000-0000-000000000000\" ts=\"\(now)\" mac=\"x\"", "kid names no app"),
            ("MAC kid=\"not-a-guid\" ts=\"\(now)\" mac=\"x\"", "kid names no app"),
            ("MAC kid=\"\(h.appA.key.text)\" ts=\"\(now)\" mac=\"\(wrongSecret)\"", "does not match"),
            (h.authorization(h.appA, method: "GET", target: target), "does not match"),
            (h.authorization(h.appA, method: "POST", target: target, ts: now - 301), "outside the allowed window"),
            (h.authorization(h.appA, method: "POST", target: target, ts: now + 301), "outside the allowed window"),
        ]
        for (header, reason) in cases {
            let reply = await h.call(.POST, target, app: h.appA, body: "{}", authorization: header, omitAuthorization: header == nil)
            #expect(reply.status == 401, "\(header ?? "none")")
            #expect(reply.message.contains(reason), "\(header ?? "none"): \(reply.message)")
            #expect(reply.headers["www-authenticate"] == "MAC")
        }
        #expect(try h.gateway.count("SELECT count(*) FROM registrations") == 0)
        // Inside the window, either way, is fine.
        for skew in [-300, 300] as [Int64] {
            let reply = await h.call(.POST, target, app: h.appA, body: "{}",
                                     authorization: h.authorization(h.appA, method: "POST", target: target, ts: now + skew))
            #expect(reply.status == 200)
        }
    }

    @Test("the same signed request twice within the window is a replay; another install's request with the same mac is not")
    func replay() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let first = try await h.register(h.appA)
        let second = try await h.register(h.appA)
        let signature = h.authorization(h.appA, method: "GET", target: "/v1.0/deviceregistrations")
        let once = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: first, authorization: signature)
        #expect(once.status == 200)
        let again = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: first, authorization: signature)
        #expect(again.status == 401)
        #expect(again.message.contains("already used"))
        // Every install of an app signs the same string in the same second: that is not a replay.
        let otherInstall = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: second, authorization: signature)
        #expect(otherInstall.status == 200)
    }

    @Test("one install's requests sharing a signature are replays only if their bodies are the same")
    func replayByBody() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA)
        let signature = h.authorization(h.appA, method: "PUT", target: "/v1.0/messages")
        // Acks of two messages (bodies of one length) and a read, in the same second: all past the signature
        // check (404: no such message).
        let ack = #"{"UpdateID":"12345","Status":"Delivered"}"#
        let otherAck = #"{"UpdateID":"12346","Status":"Delivered"}"#
        let read = #"{"UpdateID":"12345","ReadByRecipient":"2026-01-01T00:00:00.000Z"}"#
        for body in [ack, otherAck, read] {
            let reply = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: body, authorization: signature)
            #expect(reply.status == 404, "\(body)")
        }
        let replayed = await h.call(.PUT, "/v1.0/messages", app: h.appA, device: device, body: read, authorization: signature)
        #expect(replayed.status == 401)
        #expect(replayed.message.contains("already used"))
    }

    @Test("User-Agent must name iOS, Android or WindowsPhone", arguments: [
        ("MyApp/1.0 (Android 6.0.1; LGE; Nexus 5X; en_US)", "Android"),
        ("MyApp/2.3 (iPhone; iOS 17.1; Scale/3.00)", "iOS"),
        ("MyApp/2.3 CFNetwork/1410 Darwin/22.6.0 iPadOS", "iOS"),
        ("Mozilla/5.0 (Windows Phone 8.1; ARM; Trident/7.0; Android 4.0; iPhone)", "WindowsPhone"),
        ("MyApp/1.0 (WindowsPhone 10)", "WindowsPhone"),
    ])
    func platforms(agent: String, platform: String) async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let reply = await h.call(.POST, "/v1.0/deviceregistrations", app: h.appA, body: "{}", userAgent: agent)
        #expect(reply.status == 200)
        #expect(reply.json["Platform"] as? String == platform)
        #expect(reply.json["UserAgent"] as? String == agent)
    }

    @Test("a missing User-Agent, or one naming no platform, is 400")
    func badUserAgent() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        for (index, agent) in ([nil, "", "curl/8.5.0", "MyApp/1.0 (Biosphere; Linux)"] as [String?]).enumerated() {
            let reply = await h.call(.POST, "/v1.0/deviceregistrations", app: h.appA, body: "{}", userAgent: agent,
                                     remoteAddress: "192.0.2.\(index + 10)")
            #expect(reply.status == 400, "\(agent ?? "none")")
            #expect(reply.message.contains("User-Agent"))
        }
    }

    @Test("DeviceID is required after registering; missing, garbled, unknown or another app's → 400")
    func deviceIDRules() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let mine = try await h.register(h.appA)
        let theirs = try await h.register(h.appB)
        for (method, target) in [(HTTPMethod.GET, "/v1.0/deviceregistrations"), (.PUT, "/v1.0/deviceregistrations"),
                                 (.DELETE, "/v1.0/deviceregistrations"), (.GET, "/v1.0/messages"), (.PUT, "/v1.0/messages"),
                                 (.POST, "/v1.0/deviceregistrations/voicecall")] {
            let missing = await h.call(method, target, app: h.appA, body: "{}")
            #expect(missing.status == 400, "\(method) \(target)")
            #expect(missing.message.contains("DeviceID header is required"))
            let garbled = await h.call(method, target, app: h.appA, body: "{}", extraHeaders: [("DeviceID", "abc")])
            #expect(garbled.status == 400)
            var generator = SystemRandomNumberGenerator()
            let unknown = await h.call(method, target, app: h.appA, device: .random(using: &generator), body: "{}")
            #expect(unknown.status == 400)
            #expect(unknown.message.contains("not known"))
            let foreign = await h.call(method, target, app: h.appA, device: theirs, body: "{}")
            #expect(foreign.status == 400)
            #expect(foreign.message == unknown.message)
        }
        #expect(await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: mine).status == 200)
    }
}
