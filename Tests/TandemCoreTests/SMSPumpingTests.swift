import Foundation
import Testing
@testable import TandemCore

@Suite("SMS pumping defence: regions, prefixes, conversion windows and the PIN SMS guard")
struct SMSPumpingTests {
    let t0 = Timestamp(milliseconds: 1_800_000_000_000)
    let app = AppKey("11111111-1111-4111-8111-111111111111")!
    let other = AppKey("22222222-2222-4222-8222-222222222222")!

    static let regions: [(String, String)] = [
        ("+31612345678", "NL"), ("+5351234567", "CU"), ("+18765551234", "JM"), ("+12125551234", "US"),
        ("+14165551234", "CA"), ("+18095551234", "DO"), ("+77011234567", "KZ"), ("+79161234567", "RU"),
        ("+447911123456", "GB"), ("+881612345678", "001"), ("+97912345678", "001"), ("+2917123456", "ER"),
        ("+2801234567", "ZZ"),
    ]

    @Test("the region comes from the calling code, longest prefix first (NANP by area code)", arguments: regions)
    func region(number: String, expected: String) throws {
        let msisdn = try #require(MSISDN(number))
        #expect(CallingCodes.region(of: msisdn).text == expected)
    }

    @Test("a prefix is the number without its last four digits; operators' prefixes parse strictly")
    func prefixes() throws {
        #expect(NumberPrefix(try #require(MSISDN("+31612345678"))).text == "+3161234")
        #expect(NumberPrefix("+3161234")?.text == "+3161234")
        for bad in ["3161234", "+316", "+0161234", "+316123456789", "+31a1234", ""] { #expect(NumberPrefix(bad) == nil, "\(bad)") }
    }

    @Test("allow lists refuse what they do not name, unknown and non-geographic regions too; deny lists the reverse")
    func countryRules() throws {
        let allow = try CountryRule.lists(allow: ["nl", "BE"], deny: nil)
        #expect(allow.permits(RegionCode("NL")!) && !allow.permits(RegionCode("CU")!))
        #expect(!allow.permits(.unknown) && !allow.permits(.nonGeographic))
        let deny = try CountryRule.lists(allow: nil, deny: ["CU", "001"])
        #expect(!deny.permits(RegionCode("CU")!) && !deny.permits(.nonGeographic) && deny.permits(RegionCode("NL")!))
        #expect(throws: SMSProtectionError.self) { try CountryRule.lists(allow: ["NL"], deny: ["CU"]) }
        #expect(throws: SMSProtectionError.self) { try CountryRule.lists(allow: ["Netherlands"], deny: nil) }
    }

    @Test("settings round-trip through their stored JSON; bad values are refused")
    func protectionJSON() throws {
        let protection = SMSProtection(mode: .monitor, countries: .deny([RegionCode("CU")!, .nonGeographic]), pinLength: 4)
        let text = try JSONEncoder().encode(protection)
        #expect(String(decoding: text, as: UTF8.self).contains(#""deny":["001","CU"]"#))
        #expect(try JSONDecoder().decode(SMSProtection.self, from: text) == protection)
        for bad in [#"{"mode":"block"}"#, #"{"pinLength":3}"#, #"{"allow":["NL"],"deny":["CU"]}"#, #"{"deny":["Cuba"]}"#] {
            #expect(throws: DecodingError.self, "\(bad)") { try JSONDecoder().decode(SMSProtection.self, from: Data(bad.utf8)) }
        }
    }

    @Test("deviceAPI.protection: every key decodes, conversion may be turned off, bad values name their key")
    func configuration() throws {
        let loaded = try loadTestConfiguration("""
            {"deviceAPI": {"protection": {"pinPerPrefix": {"limit": 5, "window": "1h"}, "pinPerMSISDNDaily": {"limit": 4, "window": "24h"},
             "conversion": {"window": "30m", "minimumSent": 8, "threshold": 0.25, "blockFor": "2h"}, "webhook": "https://ops.example.com/hook"},
             "limits": {"registrationsPerClientIP": {"limit": 7, "window": "1h"}, "registrationsPerApp": {"limit": 9, "window": "1m"}}}}
            """).deviceAPI
        #expect(loaded.protection.guardSettings == PinSMSGuard.Settings(
            prefixVelocity: (5, .seconds(3_600)), dailyCap: (4, .seconds(86_400)),
            conversion: .init(window: .seconds(1_800), minimumSent: 8, threshold: 0.25, blockFor: .seconds(7_200))))
        #expect(loaded.protection.webhook == "https://ops.example.com/hook")
        #expect(loaded.limits.registrationsPerClientIP == .init(limit: 7, window: .seconds(3_600)))
        #expect(loaded.limits.registrationsPerApp == .init(limit: 9, window: .seconds(60)))
        #expect(try loadTestConfiguration(#"{"deviceAPI": {"protection": {"conversion": null}}}"#).deviceAPI.protection.conversion == nil)
        #expect(try loadTestConfiguration("{}").deviceAPI.verification.pinLength == 6)
        for (json, key) in [(#"{"deviceAPI": {"protection": {"conversion": {"threshold": 1.5}}}}"#, "threshold"),
                            (#"{"deviceAPI": {"protection": {"conversion": {"treshold": 0.5}}}}"#, "treshold"),
                            (#"{"deviceAPI": {"protection": {"webhook": "ftp://x"}}}"#, "webhook"),
                            (#"{"deviceAPI": {"protection": {"pinPerPrefix": {"limit": 0, "window": "1h"}}}}"#, "limit")] {
            #expect(testConfigurationProblem(json)?.contains(key) == true, "\(json)")
        }
    }

    @Test("a conversion window counts in slices and forgets a slice whole once it leaves the window")
    func conversionWindow() {
        var window = ConversionWindow(window: .seconds(3_600), buckets: 12)
        let start = Timestamp(milliseconds: 3_600_000 * 500)  // on a slice boundary
        for _ in 0..<30 { window.recordSent(now: start + .seconds(60)) }
        for _ in 0..<3 { window.recordVerified(now: start + .seconds(240)) }
        #expect(window.sent(now: start + .seconds(300)) == 30 && window.verified(now: start + .seconds(300)) == 3)
        #expect(window.sent(now: start + .milliseconds(3_599_999)) == 30)   // 10:59:59.999 of the example
        #expect(window.sent(now: start + .seconds(3_600)) == 0)             // 11:00: the 10:00–10:05 slice left
        #expect(window.isEmpty(now: start + .seconds(3_600)))
        window.recordSent(now: start + .seconds(3_600))
        #expect(window.sent(now: start + .seconds(3_600)) == 1 && window.verified(now: start + .seconds(3_600)) == 0)
    }

    func request(_ number: String, protection: SMSProtection = SMSProtection(), app: AppKey? = nil) -> PinSMSGuard.Request {
        PinSMSGuard.Request(app: app ?? self.app, msisdn: MSISDN(number)!, protection: protection)
    }

    @Test("prefix velocity: the limit is per app and prefix; a refusal says when the oldest send leaves the window")
    func prefixVelocity() {
        var guardian = PinSMSGuard(settings: .init(prefixVelocity: (3, .seconds(600)), dailyCap: (100, .seconds(86_400)), conversion: nil))
        for (index, suffix) in ["0001", "0002", "0003"].enumerated() {
            let sent = request("+3161234" + suffix)
            #expect(guardian.evaluate(sent, now: t0 + .seconds(Int64(index))).isEmpty)
            let block = guardian.recordSent(sent, now: t0 + .seconds(Int64(index)))
            #expect(block == nil)
        }
        #expect(guardian.evaluate(request("+31612349999"), now: t0 + .seconds(10)) == [.prefixVelocity(retryAfter: .seconds(590))])
        #expect(guardian.evaluate(request("+31612359999"), now: t0 + .seconds(10)).isEmpty)          // another prefix
        #expect(guardian.evaluate(request("+31612349999", app: other), now: t0 + .seconds(10)).isEmpty)  // another app
        #expect(guardian.evaluate(request("+31612349999"), now: t0 + .seconds(600)).isEmpty)
    }

    @Test("the daily cap counts one number across apps")
    func dailyCap() {
        var guardian = PinSMSGuard(settings: .init(prefixVelocity: (100, .seconds(600)), dailyCap: (2, .seconds(86_400)), conversion: nil))
        _ = guardian.recordSent(request("+31612345678"), now: t0)
        _ = guardian.recordSent(request("+31612345678", app: other), now: t0 + .seconds(3_600))
        #expect(guardian.evaluate(request("+31612345678"), now: t0 + .seconds(7_200))
                == [.dailyCap(retryAfter: .seconds(86_400 - 7_200))])
        #expect(guardian.evaluate(request("+31612345679"), now: t0 + .seconds(7_200)).isEmpty)
    }

    @Test("a denied country is reported first, whatever else the request violates; monitor mode does not change the findings")
    func countryFirst() {
        var guardian = PinSMSGuard(settings: .init(prefixVelocity: (1, .seconds(600)), dailyCap: (1, .seconds(86_400)), conversion: nil))
        let denyCuba = SMSProtection(countries: .deny([RegionCode("CU")!]))
        _ = guardian.recordSent(request("+5351234567", protection: denyCuba), now: t0)
        let findings = guardian.evaluate(request("+5351234567", protection: denyCuba), now: t0 + .seconds(1))
        #expect(findings.first == .countryDenied(RegionCode("CU")!))
        #expect(findings.count == 3)
        var monitored = denyCuba
        monitored.mode = .monitor
        #expect(guardian.evaluate(request("+5351234567", protection: monitored), now: t0 + .seconds(1)) == findings)
        #expect(guardian.evaluate(request("+31612345678", protection: denyCuba), now: t0 + .seconds(1)).isEmpty)
    }

    static let pumping = PinSMSGuard.Settings(prefixVelocity: (1_000, .seconds(600)), dailyCap: (1_000, .seconds(86_400)),
                                              conversion: .init(window: .seconds(3_600), minimumSent: 10, threshold: 0.3,
                                                                blockFor: .seconds(7_200)))

    @Test("conversion: ten sends and two verifications (20 % < 30 %) block the prefix for the app, for blockFor")
    func conversionBlock() throws {
        var guardian = PinSMSGuard(settings: Self.pumping)
        for index in 0..<9 {
            let early = guardian.recordSent(request("+3161234\(1000 + index)"), now: t0 + .seconds(Int64(index)))
            #expect(early == nil)
        }
        guardian.recordVerified(app: app, msisdn: MSISDN("+31612341000")!, now: t0 + .seconds(20))
        guardian.recordVerified(app: app, msisdn: MSISDN("+31612341001")!, now: t0 + .seconds(21))
        let made = guardian.recordSent(request("+31612341009"), now: t0 + .seconds(30))
        let block = try #require(made)
        #expect(block == PrefixBlock(app: app, prefix: NumberPrefix("+3161234")!, region: RegionCode("NL")!, since: t0 + .seconds(30),
                                     until: t0 + .seconds(7_230), sent: 10, verified: 2))
        #expect(guardian.evaluate(request("+31612345555"), now: t0 + .seconds(31)) == [.prefixBlocked(until: t0 + .seconds(7_230))])
        #expect(guardian.evaluate(request("+31612345555", app: other), now: t0 + .seconds(31)).isEmpty)
        let second = guardian.recordSent(request("+31612345555"), now: t0 + .seconds(32))
        #expect(second == nil)  // one block at a time
        #expect(guardian.activeBlocks(now: t0 + .seconds(40)) == [block])
        // It ends on its own, and the window starts afresh (no instant re-block).
        #expect(guardian.evaluate(request("+31612345555"), now: t0 + .seconds(7_230)).isEmpty)
        let afterwards = guardian.recordSent(request("+31612345555"), now: t0 + .seconds(7_230))
        #expect(afterwards == nil)
        #expect(guardian.activeBlocks(now: t0 + .seconds(7_230)).isEmpty)
    }

    @Test("conversion at the threshold, or below minimumSent, does not block")
    func conversionAtThreshold() {
        var guardian = PinSMSGuard(settings: Self.pumping)
        for index in 0..<10 {
            let number = MSISDN("+3161234\(1000 + index)")!
            _ = guardian.recordSent(request(number.e164), now: t0 + .seconds(Int64(index)))
            if index < 3 { guardian.recordVerified(app: app, msisdn: number, now: t0 + .seconds(Int64(index))) }
        }
        #expect(guardian.activeBlocks(now: t0 + .seconds(20)).isEmpty)  // 3 of 10 = 30 %, not below
        var sparse = PinSMSGuard(settings: Self.pumping)
        for index in 0..<9 { _ = sparse.recordSent(request("+3161234\(1000 + index)"), now: t0) }
        #expect(sparse.activeBlocks(now: t0).isEmpty)  // 0 of 9: too few to judge
    }

    @Test("a run spread over many prefixes blocks none of them but alerts on the app, once per window")
    func appConversion() {
        var guardian = PinSMSGuard(settings: Self.pumping)
        var alerts: [AppConversionAlert] = []
        for index in 0..<12 {   // one send per prefix: no prefix reaches minimumSent
            let sent = request("+316\(10 + index)000001")
            _ = guardian.recordSent(sent, now: t0 + .seconds(Int64(index)))
            if index == 0 { guardian.recordVerified(app: app, msisdn: sent.msisdn, now: t0) }
            if let alert = guardian.checkAppConversion(app: app, now: t0 + .seconds(Int64(index))) { alerts.append(alert) }
        }
        #expect(guardian.activeBlocks(now: t0 + .seconds(20)).isEmpty)
        #expect(alerts == [AppConversionAlert(app: app, at: t0 + .seconds(9), sent: 10, verified: 1)])
        #expect(guardian.checkAppConversion(app: other, now: t0 + .seconds(20)) == nil)
        _ = guardian.recordSent(request("+31699000001"), now: t0 + .seconds(3_605))
        let again = guardian.checkAppConversion(app: app, now: t0 + .seconds(3_610))
        #expect(again == nil)   // the window moved on: 1 send left in it, below minimumSent
    }

    @Test("lifting ends the block and forgets the window; restored blocks are enforced, expired ones ignored")
    func liftAndRestore() throws {
        var guardian = PinSMSGuard(settings: Self.pumping)
        var block: PrefixBlock?
        for index in 0..<10 { block = guardian.recordSent(request("+3161234\(1000 + index)"), now: t0) ?? block }
        let made = try #require(block)
        let lifted = guardian.lift(app: app, prefix: made.prefix, now: t0 + .seconds(60))
        let liftedTwice = guardian.lift(app: app, prefix: made.prefix, now: t0 + .seconds(61))
        #expect(lifted && !liftedTwice)
        #expect(guardian.evaluate(request("+31612345555"), now: t0 + .seconds(61)).isEmpty)
        let fresh = guardian.recordSent(request("+31612345555"), now: t0 + .seconds(61))
        #expect(fresh == nil)  // the window started afresh

        var restarted = PinSMSGuard(settings: Self.pumping)
        let expired = PrefixBlock(app: app, prefix: NumberPrefix("+3161299")!, region: RegionCode("NL")!, since: t0 + .seconds(-9_000),
                                  until: t0 + .seconds(-1), sent: 20, verified: 0)
        restarted.restore([made, expired], now: t0 + .seconds(60))
        #expect(restarted.activeBlocks(now: t0 + .seconds(60)) == [made])
        #expect(restarted.evaluate(request("+31612345555"), now: t0 + .seconds(60)) == [.prefixBlocked(until: made.until)])
    }

    @Test("purge keeps what still counts")
    func purge() {
        var guardian = PinSMSGuard(settings: .init(prefixVelocity: (1, .seconds(600)), dailyCap: (5, .seconds(86_400)),
                                                   conversion: .init(window: .seconds(3_600), minimumSent: 1, threshold: 0.5, blockFor: .seconds(60))))
        _ = guardian.recordSent(request("+31612345678"), now: t0)
        guardian.purge(now: t0 + .seconds(120))
        #expect(guardian.evaluate(request("+31612345678"), now: t0 + .seconds(120)) == [.prefixVelocity(retryAfter: .seconds(480))])
        #expect(guardian.activeBlocks(now: t0 + .seconds(120)).isEmpty)
    }

    @Test("an account's country rule: SMS to a refused region is rejected, a push loses its SMS fallback; monitor changes nothing")
    func accountCountryRule() {
        let policy = PolicySet.specDefaults[.critical]
        let sms = RoutingDecision.sms(SMSRoute(reason: .noAppKey, policy: policy))
        let target = PushTarget(deviceID: DeviceID(GUID("44444444-4444-4444-8444-444444444444")!), platform: .android, token: PushToken("t")!)
        let push = RoutingDecision.push(PushPlan(targets: [target], policy: policy, smsAllowed: true))
        let cuba = MSISDN("+5351234567")!, dutch = MSISDN("+31612345678")!
        let deny = SMSCountryPolicy(countries: .deny([RegionCode("CU")!]))
        #expect(deny.restrict(sms, msisdn: cuba) == (.reject(.smsCountryNotAllowed), RegionCode("CU")))
        #expect(deny.restrict(push, msisdn: cuba) == (.push(PushPlan(targets: [target], policy: policy, smsAllowed: false)), RegionCode("CU")))
        #expect(deny.restrict(sms, msisdn: dutch) == (sms, nil))
        #expect(deny.restrict(.reject(.noAppKey), msisdn: cuba) == (.reject(.noAppKey), nil))
        let monitor = SMSCountryPolicy(mode: .monitor, countries: .deny([RegionCode("CU")!]))
        #expect(monitor.restrict(sms, msisdn: cuba) == (sms, RegionCode("CU")))
        #expect(monitor.restrict(push, msisdn: cuba) == (push, RegionCode("CU")))
        #expect(SMSCountryPolicy().restrict(sms, msisdn: cuba) == (sms, nil))
    }
}
