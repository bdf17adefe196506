import Foundation
import Testing
import TandemCore
import TandemHTTP
import TandemTestSupport
@testable import TandemAPI

@Suite("Device API: SMS pumping defence, PIN length and registration limits")
struct DeviceProtectionTests {
    static let iOSAgent = "MyApp/2.3 (iOS 17.1; Apple; iPhone15,2; nl_NL)"
    static let adminToken = "admin-token-for-tests"

    private func post(_ h: DeviceAPIHarness, _ app: App, _ body: String, from address: String = "198.51.100.7",
                      agent: String = DeviceAPIHarness.androidAgent) async -> DeviceAPIHarness.Reply {
        await h.call(.POST, "/v1.0/deviceregistrations", app: app, body: body, userAgent: agent, remoteAddress: address)
    }

    private func registrations(_ h: DeviceAPIHarness) throws -> Int { try h.gateway.count("SELECT count(*) FROM registrations") }

    private func blocked(_ h: DeviceAPIHarness, _ reason: String, _ mode: String) -> Double {
        h.metrics.render().split(separator: "\n")
            .first { $0.hasPrefix("tandem_pin_sms_blocked_total{reason=\"\(reason)\",mode=\"\(mode)\"} ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test("defect 7: new installs from one address are limited (429, Retry-After); another address is not; nothing is stored")
    func registrationsPerAddress() async throws {
        let h = try await DeviceAPIHarness { $0.limits.registrationsPerClientIP = .init(limit: 5, window: .seconds(3_600)) }
        defer { Task { await h.close() } }
        for index in 0..<5 { #expect(await post(h, h.appA, #"{"PushToken":"tok-\#(index)"}"#).status == 200) }
        let refused = await post(h, h.appA, #"{"PushToken":"tok-5"}"#)
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "3600")
        #expect(refused.message == "too many new registrations; try again later")
        #expect(try registrations(h) == 5)
        #expect(await post(h, h.appA, #"{"PushToken":"tok-6"}"#, from: "198.51.100.8").status == 200)
        #expect(h.metrics.render().contains("tandem_device_registrations_limited_total 1\n"))
        h.clock.advance(to: h.clock.now() + .seconds(3_600))
        #expect(await post(h, h.appA, #"{"PushToken":"tok-7"}"#).status == 200)
    }

    @Test("new installs of one app are limited across addresses")
    func registrationsPerApp() async throws {
        let h = try await DeviceAPIHarness { $0.limits.registrationsPerApp = .init(limit: 3, window: .seconds(60)) }
        defer { Task { await h.close() } }
        for index in 0..<3 { #expect(await post(h, h.appA, "{}", from: "203.0.113.\(index + 1)").status == 200) }
        let refused = await post(h, h.appA, "{}", from: "203.0.113.9")
        #expect(refused.status == 429 && refused.headers["Retry-After"] == "60")
        #expect(await post(h, h.appB, "{}", from: "203.0.113.9").status == 200)
    }

    @Test("push tokens are capped per platform: APNs 200, FCM 1,024 — on POST and PUT; the simulator's word tokens still pass")
    func pushTokenLength() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let android = String(repeating: "f", count: 1_024), tooLong = String(repeating: "f", count: 1_025)
        #expect(await post(h, h.appA, #"{"PushToken":"\#(android)"}"#, from: "192.0.2.10").status == 200)
        let refused = await post(h, h.appA, #"{"PushToken":"\#(tooLong)"}"#, from: "192.0.2.11")
        #expect(refused.status == 400)
        #expect(refused.message == "PushToken is too long for Android: at most 1024 characters")
        let ios = String(repeating: "a", count: 200)
        #expect(await post(h, h.appA, #"{"PushToken":"\#(ios)"}"#, from: "192.0.2.12", agent: Self.iOSAgent).status == 200)
        #expect(await post(h, h.appA, #"{"PushToken":"\#(ios)b"}"#, from: "192.0.2.13", agent: Self.iOSAgent).status == 400)
        #expect(await post(h, h.appA, #"{"PushToken":"noread-try-1"}"#, from: "192.0.2.14", agent: Self.iOSAgent).status == 200)
        #expect(try registrations(h) == 3)
        let device = try await h.register(h.appA)
        let update = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"PushToken":"\#(tooLong)"}"#)
        #expect(update.status == 400)
        #expect(try h.gateway.count("SELECT count(*) FROM registrations WHERE length(push_token) > 1024") == 0)
    }

    @Test("a denied country never gets a PIN (403, nothing stored); monitor mode sends it and counts what it would have refused")
    func deniedCountry() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let denyCuba = SMSProtection(countries: .deny([RegionCode("CU")!]))
        #expect(try await h.gateway.store.setSMSProtection(key: h.appA.key, denyCuba))
        var monitored = denyCuba
        monitored.mode = .monitor
        #expect(try await h.gateway.store.setSMSProtection(key: h.appB.key, monitored))

        let refused = await post(h, h.appA, #"{"Msisdn":"+5351234567"}"#)
        #expect(refused.status == 403)
        #expect(refused.message == "PIN messages to numbers in CU are not offered by this app")
        #expect(refused.headers["Retry-After"] == nil)
        #expect(try h.pins.sms.isEmpty && registrations(h) == 0)
        #expect(blocked(h, "country", "enforce") == 1)
        #expect(await post(h, h.appA, #"{"Msisdn":"+31612345678"}"#, from: "198.51.100.9").status == 200)

        let sent = await post(h, h.appB, #"{"Msisdn":"+5351234567"}"#, from: "198.51.100.10")
        #expect(sent.status == 200 && sent.json["RegistrationStatus"] as? String == "WaitingForPin")
        #expect(h.pins.sms.map(\.msisdn.e164) == ["+31612345678", "+5351234567"])
        #expect(blocked(h, "country", "monitor") == 1)
    }

    @Test("velocity per number prefix and app: over the budget 429 with Retry-After; another prefix or app still passes")
    func prefixVelocity() async throws {
        let h = try await DeviceAPIHarness {
            $0.protection.pinPerPrefix = .init(limit: 3, window: .seconds(600))
            $0.protection.conversion = nil
        }
        defer { Task { await h.close() } }
        for index in 1...3 {
            #expect(await post(h, h.appA, #"{"Msisdn":"+3161234000\#(index)"}"#, from: "198.51.100.\(index)").status == 200)
        }
        h.clock.advance(to: h.clock.now() + .seconds(100))
        let refused = await post(h, h.appA, #"{"Msisdn":"+31612349999"}"#, from: "198.51.100.4")
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "500")
        #expect(refused.message == "too many PIN requests to this number range; try again later")
        #expect(try h.pins.sms.count == 3 && registrations(h) == 3)
        #expect(blocked(h, "prefix_velocity", "enforce") == 1)
        #expect(await post(h, h.appA, #"{"Msisdn":"+31612359999"}"#, from: "198.51.100.5").status == 200)
        #expect(await post(h, h.appB, #"{"Msisdn":"+31612349999"}"#, from: "198.51.100.6").status == 200)
    }

    @Test("the daily cap per number holds across apps")
    func dailyCap() async throws {
        let h = try await DeviceAPIHarness {
            $0.protection.pinPerMSISDNDaily = .init(limit: 2, window: .seconds(86_400))
            $0.limits.pinPerMSISDN = .init(limit: 100, window: .seconds(3_600))
        }
        defer { Task { await h.close() } }
        #expect(await post(h, h.appA, #"{"Msisdn":"+31612345678"}"#, from: "198.51.100.1").status == 200)
        #expect(await post(h, h.appB, #"{"Msisdn":"+31612345678"}"#, from: "198.51.100.2").status == 200)
        let refused = await post(h, h.appA, #"{"Msisdn":"+31612345678"}"#, from: "198.51.100.3")
        #expect(refused.status == 429 && refused.headers["Retry-After"] == "86400")
        #expect(refused.message == "too many PIN requests to this number today; try again later")
    }

    @Test("conversion below the threshold blocks the prefix: stored, logged, counted and posted; the admin API lists and lifts it")
    func conversionBlock() async throws {
        let h = try await DeviceAPIHarness {
            $0.protection.conversion = PinSMSGuard.ConversionRule(window: .seconds(3_600), minimumSent: 5, threshold: 0.5,
                                                                   blockFor: .seconds(3_600))
            $0.protection.webhook = "http://127.0.0.1:9/blocks"
        }
        defer { Task { await h.close() } }
        // Two of the first four verify their number; the fifth send makes it 2 of 5 (40 % < 50 %).
        for index in 1...4 {
            let device = try await h.register(h.appA, body: #"{"Msisdn":"+3161234000\#(index)"}"#)
            if index <= 2 {
                let pin = try #require(h.pins.sms.last?.pin)
                let verified = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device,
                                            body: #"{"VerificationCode":"\#(pin)"}"#, remoteAddress: "192.0.2.\(index)")
                #expect(verified.json["RegistrationStatus"] as? String == "PinVerified")
            }
        }
        #expect(h.service.activePrefixBlocks(app: h.appA.key).isEmpty)
        #expect(await post(h, h.appA, #"{"Msisdn":"+31612340005"}"#, from: "198.51.100.5").status == 200)
        let blocks = h.service.activePrefixBlocks(app: h.appA.key)
        #expect(blocks.map(\.prefix.text) == ["+3161234"] && blocks.first?.sent == 5 && blocks.first?.verified == 2)
        let refused = await post(h, h.appA, #"{"Msisdn":"+31612340006"}"#, from: "198.51.100.6")
        #expect(refused.status == 429 && refused.headers["Retry-After"] == "3600")
        #expect(refused.message == "PIN requests to this number range are suspended; try again later")
        #expect(h.pins.sms.count == 5)
        #expect(h.metrics.render().contains("tandem_pin_conversion_blocks_total{mode=\"enforce\"} 1\n"))
        #expect(blocked(h, "prefix_blocked", "enforce") == 1)
        // Reported twice: the prefix block, and the app's conversion over all prefixes (the same 2 of 5 here).
        #expect(await eventually { h.webhook.received.count == 2 })
        #expect(h.webhook.received.allSatisfy { $0.url == "http://127.0.0.1:9/blocks" })
        #expect(h.webhook.received.contains { $0.body.contains(#""event":"prefixBlocked","appKey":"\#(h.appA.key.text)","prefix":"+3161234","region":"NL""#) })
        #expect(h.webhook.received.contains { $0.body.contains(#""event":"appConversionLow","appKey":"\#(h.appA.key.text)""#) })
        #expect(h.metrics.render().contains("tandem_pin_app_conversion_alerts_total 1\n"))
        #expect(try h.gateway.count("SELECT count(*) FROM sms_prefix_blocks WHERE prefix = '+3161234' AND lifted_at IS NULL") == 1)

        // A restarted service reads the block back from the store.
        let restarted = DeviceAPIService(registry: h.gateway.store, directory: h.gateway.store, scheduler: h.gateway.scheduler,
                                         pinSender: h.pins, voiceCaller: h.pins, pinCodec: PinCodec(key: Array(repeating: 7, count: 32)),
                                         now: { h.clock.now() }, prefixBlocks: h.gateway.store)
        try await restarted.restorePrefixBlocks()
        #expect(restarted.activePrefixBlocks(app: h.appA.key) == blocks)

        let admin = AdminAppsEndpoint(registry: h.gateway.store, adminToken: Self.adminToken, now: { h.clock.now() },
                                      isRegularFile: { _ in false }, prefixBlocks: h.service)
        let listed = try await send(admin, .GET, "/admin/apps/\(h.appA.key.text)/sms-blocks")
        #expect(listed.status == .ok)
        #expect(String(decoding: listed.body, as: UTF8.self).hasPrefix(#"{"blocks":[{"prefix":"+3161234","region":"NL","#))
        #expect(try await send(admin, .DELETE, "/admin/apps/\(h.appA.key.text)/sms-blocks/+3161234").status == .noContent)
        #expect(try await send(admin, .DELETE, "/admin/apps/\(h.appA.key.text)/sms-blocks/+3161234").status == .notFound)
        #expect(try await send(admin, .DELETE, "/admin/apps/\(h.appA.key.text)/sms-blocks/3161234").status == .badRequest)
        #expect(try h.gateway.count("SELECT count(*) FROM sms_prefix_blocks WHERE lifted_at IS NOT NULL") == 1)
        #expect(await post(h, h.appA, #"{"Msisdn":"+31612340007"}"#, from: "198.51.100.7").status == 200)
    }

    @Test("an app's PIN length: four digits when it asks; a PIN out when the length changes is checked with its own length")
    func pinLength() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        #expect(try await h.gateway.store.setSMSProtection(key: h.appA.key, SMSProtection(pinLength: 4)))
        let device = try await h.register(h.appA, body: #"{"Msisdn":"+31612345678"}"#)
        let four = try #require(h.pins.sms.last)
        #expect(four.pin.count == 4)
        #expect(try await h.gateway.store.setSMSProtection(key: h.appA.key, SMSProtection(pinLength: 8)))
        h.clock.advance(to: h.clock.now() + .seconds(6))   // the keyring reads the app again
        let other = try await h.register(h.appA, body: #"{"Msisdn":"+31612345679"}"#)
        #expect(h.pins.sms.last?.pin.count == 8)
        let verified = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device,
                                    body: #"{"VerificationCode":"\#(four.pin)"}"#, remoteAddress: "192.0.2.50")
        #expect(verified.json["RegistrationStatus"] as? String == "PinVerified")
        let wrongLength = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: other,
                                       body: #"{"VerificationCode":"\#(four.pin)"}"#, remoteAddress: "192.0.2.51")
        #expect(wrongLength.json["RegistrationStatus"] as? String == "LastPinVerificationFailed")
    }

    /// Routes `method target` through the admin endpoint as the server would.
    private func send(_ endpoint: AdminAppsEndpoint, _ method: HTTPMethod, _ target: String, _ body: String = "") async throws -> Response {
        var router = HTTPRouter()
        endpoint.register(in: &router)
        guard case .matched(_, let handler, let parameters) = router.match(method, path: target) else { throw HarnessError("no route \(target)") }
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer " + Self.adminToken)
        let request = Request(method: method, target: target, headers: headers, body: Array(body.utf8), pathParameters: parameters)
        switch handler {
        case .sync(let respond): return respond(request)
        case .async(let respond): return await respond(request)
        case .deferred(let respond): return await withCheckedContinuation { done in respond(request, Responder { done.resume(returning: $0) }) }
        }
    }
}
