import TandemCore
import TandemStore

/// `tandem app set-sms-protection`, `tandem app sms-blocks` and `tandem account set-sms-countries`: the
/// defence against SMS pumping on the command line. Lifting a block needs the running server (its blocks
/// are in its memory too): `DELETE /admin/apps/{appKey}/sms-blocks/{prefix}`.
extension AppCommand {
    static let setSMSProtectionUsage = "tandem app set-sms-protection APP_KEY [--mode enforce|monitor] "
        + "[--allow REGIONS | --deny REGIONS] [--pin-length 4..10] [--config PATH]"
    static let smsBlocksUsage = "tandem app sms-blocks APP_KEY [--config PATH]"

    /// Replaces the whole setting: an option left out is its default (enforce, anywhere, the configured length).
    func setSMSProtection(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config", "mode", "allow", "deny", "pin-length"], usage: Self.setSMSProtectionUsage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: Self.setSMSProtectionUsage)[1])
        var protection = SMSProtection(mode: try Self.protectionMode(parsed), countries: try Self.countryRule(parsed))
        if let text = parsed.option("pin-length") {
            guard let length = Int(text), SMSProtection.pinLengths.contains(length) else {
                throw CommandFailure(.usage, "--pin-length must be 4 to 10, got \"\(text)\"")
            }
            protection.pinLength = length
        }
        try await update(parsed, key: key, action: "set the SMS protection") { store, key in
            try await store.setSMSProtection(key: key, protection)
        }
    }

    /// The app's active prefix blocks as stored (a running server holds the same).
    func smsBlocks(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config"], usage: Self.smsBlocksUsage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: Self.smsBlocksUsage)[1])
        let blocks = try await withStore(parsed) { store throws(CommandFailure) -> [PrefixBlock] in
            _ = try await Self.details(key, in: store)
            do {
                return try await store.activePrefixBlocks(now: Timestamp(milliseconds: ProcessIO.unixMilliseconds()))
                    .filter { $0.app == key }
            } catch {
                throw CommandFailure(.failure, "cannot read the prefix blocks: \(error)")
            }
        }
        guard !blocks.isEmpty else {
            ProcessIO.writeOutput("no active prefix blocks\n")
            return
        }
        ProcessIO.writeOutput(blocks.map { block in
            "\(block.prefix.text)  \(block.region.text)  until \(ISO8601.format(block.until))  (\(block.verified) of \(block.sent) verified)"
        }.joined(separator: "\n") + "\n")
    }

    static func protectionMode(_ parsed: Arguments) throws(CommandFailure) -> ProtectionMode {
        guard let text = parsed.option("mode") else { return .enforce }
        guard let mode = ProtectionMode(rawValue: text) else {
            throw CommandFailure(.usage, "--mode must be enforce or monitor, got \"\(text)\"")
        }
        return mode
    }

    /// `--allow NL,BE` or `--deny CU,001` (comma-separated region codes).
    static func countryRule(_ parsed: Arguments) throws(CommandFailure) -> CountryRule {
        func list(_ option: String) -> [String]? {
            parsed.option(option).map { $0.split(separator: ",").map { String($0).trimmingASCIISpaces() } }
        }
        do {
            return try CountryRule.lists(allow: list("allow"), deny: list("deny"))
        } catch {
            throw CommandFailure(.usage, error.description.replacingOccurrences(of: "\"allow\"", with: "--allow")
                .replacingOccurrences(of: "\"deny\"", with: "--deny"))
        }
    }
}

extension AccountCommand {
    static let setSMSCountriesUsage = "tandem account set-sms-countries PRODUCT_TOKEN [--mode enforce|monitor] "
        + "[--allow REGIONS | --deny REGIONS] [--config PATH]"

    func setSMSCountries(_ parsed: Arguments) async throws(CommandFailure) {
        let words = try parsed.expectPositional(2, usage: Self.setSMSCountriesUsage)
        guard let token = ProductToken(words[1]) else { throw CommandFailure(.usage, "PRODUCT_TOKEN must be a GUID") }
        let policy = SMSCountryPolicy(mode: try AppCommand.protectionMode(parsed), countries: try AppCommand.countryRule(parsed))
        let store = try await StoreOpener.open(configPath: parsed.option("config"), environment: environment)
        let found: Bool
        do {
            found = try await store.setSMSCountries(productToken: token, policy)
        } catch {
            await store.close()
            throw CommandFailure(.failure, "cannot set the SMS countries: \(error)")
        }
        await store.close()
        guard found else { throw CommandFailure(.dataError, "no account has product token \(token.text)") }
        ProcessIO.writeOutput("gateway SMS: \(AppText.countries(policy.countries)) (\(policy.mode.rawValue))\n")
    }
}
