import Foundation
import Testing
import TandemCore
import TandemEngine
import TandemTestSupport
@testable import TandemAPI

@Suite("Gateway: an account's country rule for SMS")
struct GatewayCountryRuleTests {
    static func msg(to numbers: [String], extra: String = "") -> String {
        let to = numbers.map { "{\"number\":\"\($0)\"}" }.joined(separator: ",")
        return "{\"from\":\"Tandem\",\"to\":[\(to)],\"body\":{\"content\":\"Hello\"}\(extra.isEmpty ? "" : "," + extra)}"
    }

    @Test("enforce: a recipient in a refused region gets CM's 401 on its line and no SMS; the others are sent")
    func enforced() async throws {
        let h = try await GatewayHarness()
        #expect(try await h.store.setSMSCountries(productToken: h.accountA.productToken,
                                                  SMSCountryPolicy(countries: .deny([RegionCode("CU")!]))))
        let reply = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken,
                                                              Self.msg(to: ["005351234567", "0031612345678"])))
        #expect(reply.status == 200)
        #expect(reply.json["errorCode"] as? Int == 201)
        let refused = try #require(reply.lines.first)
        #expect(refused["to"] as? String == "005351234567")
        #expect(refused["messageErrorCode"] as? Int == 401)
        #expect(refused["messageDetails"] as? String == "SMS to numbers in CU is not allowed for this account")
        #expect(reply.lines.last?["status"] as? String == "Accepted")
        #expect(await eventually { h.sms.sent.count == 1 })
        #expect(h.sms.sent.map(\.msisdn.e164) == ["+31612345678"])
        #expect(try h.count("SELECT count(*) FROM deliveries WHERE msisdn = '+5351234567'") == 0)
        // An allow list refuses what it does not name; another account is not affected.
        #expect(try await h.store.setSMSCountries(productToken: h.accountA.productToken,
                                                  SMSCountryPolicy(countries: .allow([RegionCode("CU")!]))))
        let other = await h.submitJSON(GatewayHarness.request(token: h.accountB.productToken, Self.msg(to: ["0031612345679"])))
        #expect(other.json["errorCode"] as? Int == 0)
        await h.close()
    }

    @Test("monitor: the SMS is sent")
    func monitored() async throws {
        let h = try await GatewayHarness()
        #expect(try await h.store.setSMSCountries(productToken: h.accountA.productToken,
                                                  SMSCountryPolicy(mode: .monitor, countries: .allow([RegionCode("NL")!]))))
        let reply = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(to: ["005351234567"])))
        #expect(reply.json["errorCode"] as? Int == 0)
        #expect(await eventually { h.sms.sent.count == 1 })
        await h.close()
    }

    @Test("a push to a refused region goes out without SMS fallback, and a manual fallback is refused for it")
    func pushKeepsNoFallback() async throws {
        let h = try await GatewayHarness()
        #expect(try await h.store.setSMSCountries(productToken: h.accountA.productToken,
                                                  SMSCountryPolicy(countries: .deny([RegionCode("CU")!]))))
        try await h.verifiedDevice(h.appA, msisdn: "+5351234567")
        let otp = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken, Self.msg(
            to: ["005351234567"], extra: "\"appKey\":\"\(h.appA.key.text)\",\"appMessageType\":\"OTP\"")))
        #expect(otp.lines.first?["status"] as? String == "Accepted")
        let id = try #require(otp.lines.first?["messageId"] as? String)
        #expect(await eventually { h.push.sent.count == 1 })
        let manual = await h.service.manualFallback(token: h.accountA.productToken.text, idOrReference: id)
        #expect(manual.status == 200)
        #expect(manual.text.contains(#""fallback":"smsCountryNotAllowed""#))
        await h.dispatcher.waitUntilIdle()
        #expect(h.sms.sent.isEmpty)
        #expect(try h.count("SELECT count(*) FROM deliveries WHERE msisdn = '+5351234567'") == 1)
        await h.close()
    }
}
