import Foundation
import Testing
import TandemCore
import TandemHTTP
import TandemTestSupport
@testable import TandemAPI

@Suite("Device API: registrations and verification by PIN")
struct DeviceVerificationTests {
    @Test("register, set the number (PIN by SMS), wrong PIN, right PIN → PinVerified, and the router now pushes to it")
    func journey() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let created = await h.call(.POST, "/v1.0/deviceregistrations", app: h.appA, body: #"{"PushToken":"tok-1"}"#)
        #expect(created.status == 200)
        #expect(created.json["RegistrationStatus"] as? String == "Unverified")
        #expect(created.json["Msisdn"] is NSNull)
        #expect(created.json["RegisteredForPushNotification"] as? Bool == false)
        #expect(created.json["AppKey"] as? String == h.appA.key.text)
        #expect(created.json["AppName"] as? String == "App A")
        #expect(created.json["Created"] as? String == ISO8601.format(h.clock.now(), zoneDesignator: false))
        let device = try #require((created.json["DeviceID"] as? String).flatMap(DeviceID.init))

        let waiting = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"0031600000001"}"#)
        #expect(waiting.status == 200)
        #expect(waiting.json["RegistrationStatus"] as? String == "WaitingForPin")
        #expect(waiting.json["Msisdn"] as? String == "0031600000001")
        #expect(h.pins.sms.count == 1)
        let sent = try #require(h.pins.sms.first)
        #expect(sent.msisdn == MSISDN("+31600000001"))
        #expect(sent.pin.count == 6)  // deviceAPI.verification.pinLength's default
        #expect(sent.text == "Your App A verification code is \(sent.pin)")
        #expect(sent.language == "en_US")
        // The database holds no PIN.
        #expect(try h.gateway.count("SELECT count(*) FROM registrations WHERE pin_nonce LIKE '%\(sent.pin)%' AND length(pin_nonce) = \(sent.pin.count)") == 0)

        let wrong = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"VerificationCode":"\#(h.wrongPIN())"}"#)
        #expect(wrong.status == 200)
        #expect(wrong.json["RegistrationStatus"] as? String == "LastPinVerificationFailed")
        #expect(wrong.json["RegisteredForPushNotification"] as? Bool == false)

        let right = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"VerificationCode":"\#(sent.pin)"}"#)
        #expect(right.status == 200)
        #expect(right.json["RegistrationStatus"] as? String == "PinVerified")
        #expect(right.json["RegisteredForPushNotification"] as? Bool == true)

        // The gateway now routes this number to the device by push, not SMS.
        let reply = await h.gateway.submitJSON(GatewayHarness.request(token: h.gateway.accountA.productToken, """
            {"from":"Tandem","to":[{"number":"+31600000001"}],"body":{"content":"hi"},"appKey":"\(h.appA.key.text)"}
            """))
        #expect(reply.status == 200)
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        #expect(h.gateway.push.sent.first?.targets.map(\.deviceID) == [device])
        #expect(h.gateway.sms.sent.isEmpty)
    }

    @Test("GET shows the registration; PUT updates any subset; NotificationsEnabled false makes it unpushable")
    func updates() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31600000002", token: "tok-a")
        let shown = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: device)
        #expect(shown.json["RegistrationStatus"] as? String == "PinVerified")
        #expect(shown.json["NotificationsEnabled"] as? Bool == true)
        let muted = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"NotificationsEnabled":false}"#)
        #expect(muted.json["RegisteredForPushNotification"] as? Bool == false)
        #expect(muted.json["RegistrationStatus"] as? String == "PinVerified")
        let routed = try h.gateway.store.registrations(app: h.appA.key, msisdns: [MSISDN("+31600000002")!])
        #expect(routed.values.first?.first?.isPushable == false)
        // Setting the verified number again changes nothing and sends no PIN.
        let smsBefore = h.pins.sms.count
        let same = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device,
                                body: #"{"Msisdn":"+31600000002","NotificationsEnabled":true}"#)
        #expect(same.json["RegistrationStatus"] as? String == "PinVerified")
        #expect(same.json["RegisteredForPushNotification"] as? Bool == true)
        #expect(h.pins.sms.count == smsBefore)
        for bad in [#"{"Msisdn":"0612345678"}"#, #"{"Msisdn":31600000002}"#, #"{"PushToken":"has space"}"#,
                    #"{"VerificationCode":"12ab"}"#, #"{"NotificationsEnabled":"yes"}"#, "[]", "{"] {
            let reply = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: bad)
            #expect(reply.status == 400, "\(bad)")
            #expect(!reply.message.isEmpty)
        }
    }

    @Test("a push token moving to another DeviceID is removed from the old one")
    func tokenMoves() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let old = try await h.verifiedDevice(h.appA, msisdn: "+31600000003", token: "shared-token")
        let new = try await h.register(h.appA, body: #"{"PushToken":"shared-token"}"#)
        let oldView = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: old)
        #expect(oldView.json["RegisteredForPushNotification"] as? Bool == false)
        #expect(try h.gateway.count("SELECT count(*) FROM registrations WHERE push_token = 'shared-token'") == 1)
        #expect(try h.gateway.rows("SELECT device_id FROM registrations WHERE push_token = 'shared-token'")
            .first?.first == .text(new.text))
        // Another app may hold the same token string: tokens are per app.
        _ = try await h.register(h.appB, body: #"{"PushToken":"shared-token"}"#)
        #expect(try h.gateway.count("SELECT count(*) FROM registrations WHERE push_token = 'shared-token'") == 2)
    }

    @Test("several verified devices may share one number, and all are pushed")
    func sharedNumber() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let first = try await h.verifiedDevice(h.appA, msisdn: "+31600000004")
        h.clock.advance(to: h.clock.now() + .seconds(1))
        let second = try await h.verifiedDevice(h.appA, msisdn: "+31600000004")
        _ = await h.gateway.submitJSON(GatewayHarness.request(token: h.gateway.accountA.productToken, """
            {"from":"Tandem","to":[{"number":"+31600000004"}],"body":{"content":"hi"},"appKey":"\(h.appA.key.text)"}
            """))
        #expect(await eventually { h.gateway.push.sent.count == 1 })
        #expect(Set(h.gateway.push.sent.first?.targets.map(\.deviceID) ?? []) == [first, second])
    }

    @Test("DELETE resets the registration (SIM change): Unverified, no number, same DeviceID")
    func reset() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31600000005", token: "tok-r")
        let reply = await h.call(.DELETE, "/v1.0/deviceregistrations", app: h.appA, device: device)
        #expect(reply.status == 200)
        #expect(reply.json["RegistrationStatus"] as? String == "Unverified")
        #expect(reply.json["Msisdn"] is NSNull)
        #expect(reply.json["DeviceID"] as? String == device.text)
        #expect(try h.gateway.store.registrations(app: h.appA.key, msisdns: [MSISDN("+31600000005")!]).isEmpty)
    }

    @Test("the same unverified number again resends the same PIN while valid; after expiry a new one")
    func resendAndExpiry() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA, body: #"{"Msisdn":"+31600000006"}"#)
        let first = try #require(h.pins.sms.last?.pin)
        h.clock.advance(to: h.clock.now() + .seconds(60))
        _ = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"0031600000006"}"#)
        #expect(h.pins.sms.count == 2)
        #expect(h.pins.sms.last?.pin == first)
        // Past the 10-minute lifetime the PIN no longer verifies…
        h.clock.advance(to: h.clock.now() + .seconds(600))
        let late = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"VerificationCode":"\#(first)"}"#)
        #expect(late.json["RegistrationStatus"] as? String == "LastPinVerificationFailed")
        // …and asking again issues a new PIN, which does.
        _ = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"0031600000006"}"#)
        #expect(h.pins.sms.count == 3)
        let fresh = try #require(h.pins.sms.last?.pin)
        let ok = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"VerificationCode":"\#(fresh)"}"#)
        #expect(ok.json["RegistrationStatus"] as? String == "PinVerified")
    }

    @Test("after 5 wrong PINs even the right one fails until a new PIN is requested")
    func attemptLimit() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA, body: #"{"Msisdn":"+31600000007"}"#)
        let pin = try #require(h.pins.sms.last?.pin)
        for attempt in 1...5 {
            h.clock.advance(to: h.clock.now() + .seconds(1))
            let reply = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device,
                                     body: #"{"VerificationCode":"\#(h.wrongPIN())"}"#)
            #expect(reply.json["RegistrationStatus"] as? String == "LastPinVerificationFailed", "attempt \(attempt)")
        }
        h.clock.advance(to: h.clock.now() + .seconds(1))
        let blocked = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"VerificationCode":"\#(pin)"}"#)
        #expect(blocked.json["RegistrationStatus"] as? String == "LastPinVerificationFailed")
        h.clock.advance(to: h.clock.now() + .seconds(1))
        _ = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000007"}"#)
        let fresh = try #require(h.pins.sms.last?.pin)
        #expect(h.pins.sms.count == 2)
        let ok = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"VerificationCode":"\#(fresh)"}"#)
        #expect(ok.json["RegistrationStatus"] as? String == "PinVerified")
    }

    @Test("a voice call is refused before an SMS PIN, then reads out the same PIN")
    func voiceCallOrdering() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA)
        let early = await h.call(.POST, "/v1.0/deviceregistrations/voicecall", app: h.appA, device: device, body: "{}")
        #expect(early.status == 400)
        #expect(early.message.contains("request a PIN by SMS first"))
        #expect(h.pins.calls.isEmpty)
        _ = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000008"}"#)
        let pin = try #require(h.pins.sms.last?.pin)
        h.clock.advance(to: h.clock.now() + .seconds(1))
        let wrongNumber = await h.call(.POST, "/v1.0/deviceregistrations/voicecall", app: h.appA, device: device,
                                       body: #"{"Msisdn":"+31600000009"}"#)
        #expect(wrongNumber.status == 400)
        let call = await h.call(.POST, "/v1.0/deviceregistrations/voicecall", app: h.appA, device: device,
                                body: #"{"Msisdn":"+31600000008"}"#)
        #expect(call.status == 200)
        #expect(h.pins.calls.map(\.pin) == [pin])
        #expect(h.pins.calls.first?.language == "en_US")
        // Once the PIN expired, no voice call until a new SMS PIN.
        h.clock.advance(to: h.clock.now() + .seconds(601))
        let expired = await h.call(.POST, "/v1.0/deviceregistrations/voicecall", app: h.appA, device: device, body: "")
        #expect(expired.status == 400)
        #expect(h.pins.calls.count == 1)
    }

    @Test("a PIN the SMSC would not take is 502; asking again resends the same PIN")
    func pinSendFailure() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA)
        h.pins.failing(true)
        let failed = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000010"}"#)
        #expect(failed.status == 502)
        #expect(failed.message == "the PIN could not be sent: the SMS provider is unavailable; try again later")
        h.pins.failing(false)
        h.clock.advance(to: h.clock.now() + .seconds(1))
        let again = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000010"}"#)
        #expect(again.status == 200)
        #expect(again.json["RegistrationStatus"] as? String == "WaitingForPin")
        #expect(h.pins.sms.count == 1)
    }

    @Test("a VerificationCode with no PIN outstanding is 400")
    func codeWithoutPIN() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA)
        let reply = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"VerificationCode":"1234"}"#)
        #expect(reply.status == 400)
        #expect(reply.message.contains("set Msisdn first"))
    }
}

@Suite("Device API: abuse limits")
struct DeviceAbuseLimitTests {
    @Test("per number: the 4th PIN in an hour is 429 with Retry-After, and nothing is sent or stored")
    func perNumber() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA)
        for second in 0..<3 {
            h.clock.advance(to: GatewayHarness.t0 + .seconds(Int64(second * 60)))
            let reply = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000020"}"#)
            #expect(reply.status == 200)
        }
        h.clock.advance(to: GatewayHarness.t0 + .seconds(600))
        let refused = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000020"}"#)
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "3000")
        #expect(h.pins.sms.count == 3)
        // Another install asking for the same number is refused too (the budget is the number's).
        let other = try await h.register(h.appA, remoteAddress: "198.51.100.7")
        let viaOther = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: other, body: #"{"Msisdn":"+31600000020"}"#,
                                    remoteAddress: "198.51.100.7")
        #expect(viaOther.status == 429)
        let stored = await h.call(.GET, "/v1.0/deviceregistrations", app: h.appA, device: other, remoteAddress: "198.51.100.7")
        #expect(stored.json["Msisdn"] is NSNull)
        // An hour after the first, one more is allowed.
        h.clock.advance(to: GatewayHarness.t0 + .seconds(3_600))
        let later = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000020"}"#)
        #expect(later.status == 200)
    }

    @Test("per app per minute")
    func perApp() async throws {
        let h = try await DeviceAPIHarness { api in api.limits.pinPerApp = .init(limit: 2, window: .seconds(60)) }
        defer { Task { await h.close() } }
        for index in 0..<2 {
            _ = try await h.register(h.appA, body: #"{"Msisdn":"+3160000003\#(index)"}"#, remoteAddress: "192.0.2.\(index + 10)")
        }
        let refused = await h.call(.POST, "/v1.0/deviceregistrations", app: h.appA, body: #"{"Msisdn":"+31600000039"}"#,
                                   remoteAddress: "192.0.2.99")
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "60")
        #expect(try h.gateway.count("SELECT count(*) FROM registrations") == 2)
        // Another app has its own budget.
        _ = try await h.register(h.appB, body: #"{"Msisdn":"+31600000039"}"#, remoteAddress: "192.0.2.98")
    }

    @Test("per client IP: PIN requests, and PIN attempts (brute force)")
    func perClientIP() async throws {
        let h = try await DeviceAPIHarness { api in
            api.limits.pinPerClientIP = .init(limit: 2, window: .seconds(3_600))
            api.limits.verifyPerClientIP = .init(limit: 3, window: .seconds(3_600))
        }
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA, body: #"{"Msisdn":"+31600000040"}"#, remoteAddress: "203.0.113.5")
        _ = try await h.register(h.appA, body: #"{"Msisdn":"+31600000041"}"#, remoteAddress: "203.0.113.5")
        let refused = await h.call(.POST, "/v1.0/deviceregistrations", app: h.appA, body: #"{"Msisdn":"+31600000042"}"#,
                                   remoteAddress: "203.0.113.5")
        #expect(refused.status == 429)
        #expect(Int(refused.headers["retry-after"] ?? "") == 3_600)
        let elsewhere = await h.call(.POST, "/v1.0/deviceregistrations", app: h.appA, body: #"{"Msisdn":"+31600000042"}"#,
                                     remoteAddress: "203.0.113.6")
        #expect(elsewhere.status == 200)
        for attempt in 0..<3 {
            h.clock.advance(to: h.clock.now() + .seconds(1))
            let reply = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device,
                                     body: #"{"VerificationCode":"\#(h.wrongPIN())"}"#, remoteAddress: "203.0.113.5")
            #expect(reply.status == 200, "attempt \(attempt)")
        }
        h.clock.advance(to: h.clock.now() + .seconds(1))
        let brute = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device,
                                 body: #"{"VerificationCode":"1111"}"#, remoteAddress: "203.0.113.5")
        #expect(brute.status == 429)
        #expect(brute.headers["retry-after"] != nil)
    }
}
