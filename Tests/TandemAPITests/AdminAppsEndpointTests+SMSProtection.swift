import Foundation
import Testing
import TandemCore
import TandemHTTP
@testable import TandemAPI

/// The admin routes of the SMS pumping defence: an app's protection and an account's SMS countries.
extension AdminAppsEndpointTests {
    @Test("SMS protection and an account's SMS countries: set whole, shown in the documents; bad bodies are 400, unknown keys 404")
    func smsProtection() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let (token, key, _) = try await provision(admin)
        let set = try await send(admin, .PUT, "/admin/apps/\(key)/sms-protection", #"{"mode":"monitor","allow":["nl","BE"],"pinLength":4}"#)
        #expect(set.status == .ok)
        #expect(text(set).contains(#""smsProtection":{"mode":"monitor","allow":["BE","NL"],"pinLength":4}"#))
        #expect(registry.storedApp(AppKey(key)!)?.smsProtection
                == SMSProtection(mode: .monitor, countries: .allow([RegionCode("NL")!, RegionCode("BE")!]), pinLength: 4))
        for (body, problem) in [(#"{"pinLength":3}"#, #""pinLength" must be 4 to 10"#),
                                (#"{"mode":"block"}"#, #""mode" must be enforce or monitor, got "block""#),
                                (#"{"allow":["NL"],"deny":["CU"]}"#, #"give "allow" or "deny", not both"#),
                                (#"{"deny":"CU"}"#, #""deny" must be an array of strings, not a string"#),
                                (#"{"countries":["CU"]}"#, #"unknown key "countries""#)] {
            let refused = try await send(admin, .PUT, "/admin/apps/\(key)/sms-protection", body)
            #expect(refused.status == .badRequest, "\(body)")
            #expect(try error(refused).contains(problem), "\(body): \(text(refused))")
        }
        #expect(try await send(admin, .PUT, "/admin/apps/00000000-0000-4000-8000-000000000009/sms-protection", "{}").status == .notFound)
        // Blocks live in the running device API: without one in this process the routes say so.
        #expect(try await send(admin, .GET, "/admin/apps/\(key)/sms-blocks").status == .serviceUnavailable)

        let countries = try await send(admin, .PUT, "/admin/accounts/\(token)/sms-countries", #"{"deny":["CU","001"]}"#)
        #expect(countries.status == .ok)
        #expect(text(countries).contains(#""smsCountries":{"mode":"enforce","deny":["001","CU"]}"#))
        #expect(try registry.account(productToken: ProductToken(token)!)?.smsCountries
                == SMSCountryPolicy(countries: .deny([RegionCode("CU")!, .nonGeographic])))
        #expect(try await send(admin, .PUT, "/admin/accounts/00000000-0000-4000-8000-000000000009/sms-countries", "{}").status
                == .notFound)
        #expect(try await send(admin, .PUT, "/admin/accounts/not-a-token/sms-countries", "{}").status == .badRequest)
    }
}
