import TandemCore
import TandemHTTP

/// The admin routes of the defence against SMS pumping: an app's protection (mode, country rule, PIN
/// length), its prefix blocks (listed and lifted), and an account's country rule for gateway SMS.
extension AdminAppsEndpoint {
    func registerSMSProtection(in router: inout HTTPRouter) {
        router.add(.PUT, "/admin/apps/{appKey}/sms-protection", asyncRoute { request throws(AdminFailure) in
            try await self.setSMSProtection(request)
        })
        router.add(.GET, "/admin/apps/{appKey}/sms-blocks", asyncRoute { request throws(AdminFailure) in
            try await self.listBlocks(request)
        })
        router.add(.DELETE, "/admin/apps/{appKey}/sms-blocks/{prefix}", asyncRoute { request throws(AdminFailure) in
            try await self.liftBlock(request)
        })
        router.add(.PUT, "/admin/accounts/{productToken}/sms-countries", asyncRoute { request throws(AdminFailure) in
            try await self.setSMSCountries(request)
        })
    }

    /// Replaces the whole setting: a key left out is its default (enforce, anywhere, the configured length).
    private func setSMSProtection(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let body = try AdminRequestBody(request.body, keys: ["mode", "allow", "deny", "pinLength"])
        var protection = SMSProtection(mode: try Self.mode(body), countries: try Self.countries(body))
        if let length = try body.int("pinLength") {
            guard SMSProtection.pinLengths.contains(length) else { throw .badRequest("\"pinLength\" must be 4 to 10") }
            protection.pinLength = length
        }
        return try await change(key, "set the SMS protection", log: "sms protection set") {
            try await registry.setSMSProtection(key: key, protection)
        }
    }

    private func listBlocks(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        _ = try await details(key)
        let control = try blockControl()
        let blocks = control.activePrefixBlocks(app: key).map(AdminJSON.block)
        return AdminJSON.response(.ok, AdminJSON.object(["blocks": .array(blocks)]))
    }

    private func liftBlock(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let text = request.pathParameters["prefix"] ?? ""
        guard let prefix = NumberPrefix(text) else {
            throw .badRequest("the prefix must be + and 4 to 11 digits, like +3161234, got \(JSONText.quoted(text))")
        }
        let control = try blockControl()
        guard try await call("lift a prefix block", { try await control.liftPrefixBlock(app: key, prefix: prefix) }) else {
            throw .notFound("app \(key.text) has no active block on \(prefix.text)")
        }
        logger.info("prefix block lifted by the admin API", ["appKey": .string(key.text), "prefix": .string(prefix.text)])
        var response = Response(status: .noContent)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    private func setSMSCountries(_ request: Request) async throws(AdminFailure) -> Response {
        let text = request.pathParameters["productToken"] ?? ""
        guard let token = ProductToken(text) else { throw .badRequest("the product token must be a GUID") }
        let body = try AdminRequestBody(request.body, keys: ["mode", "allow", "deny"])
        let policy = SMSCountryPolicy(mode: try Self.mode(body), countries: try Self.countries(body))
        guard try await call("set the SMS countries", { try await registry.setSMSCountries(productToken: token, policy) }),
              let account = try await call("read the account", { try await registry.account(productToken: token) }) else {
            throw .notFound("no account has product token \(token)")
        }
        logger.info("account sms countries set", ["account": .string(account.name)])
        return AdminJSON.response(.ok, AdminJSON.account(account))
    }

    private func blockControl() throws(AdminFailure) -> any PrefixBlockControl {
        guard let prefixBlocks else { throw AdminFailure(.serviceUnavailable, "the device API is not running in this process") }
        return prefixBlocks
    }

    private static func mode(_ body: AdminRequestBody) throws(AdminFailure) -> ProtectionMode {
        guard let text = try body.string("mode") else { return .enforce }
        guard let mode = ProtectionMode(rawValue: text) else {
            throw .badRequest("\"mode\" must be enforce or monitor, got \(JSONText.quoted(text))")
        }
        return mode
    }

    private static func countries(_ body: AdminRequestBody) throws(AdminFailure) -> CountryRule {
        do {
            return try CountryRule.lists(allow: try body.strings("allow"), deny: try body.strings("deny"))
        } catch let error as SMSProtectionError {
            throw .badRequest(error.description)
        } catch let error as AdminFailure {
            throw error
        } catch {
            throw .badRequest("\(error)")
        }
    }
}
