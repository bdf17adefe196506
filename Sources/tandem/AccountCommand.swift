import TandemCore
import TandemEngine
import TandemStore

/// `tandem account …`: create, list, disable, enable, rotate-token, set-webhook and set-sms-countries.
///
/// Guaranteed: an account is never deleted (its messages keep their history); a product token is printed
/// in full only by `create`, `rotate-token` and `list` (which reads the database that holds it anyway).
/// Not guaranteed: that a running server notices at once — it reloads accounts within 5 seconds.
struct AccountCommand {
    static let usage = """
        usage: tandem account create NAME [--config PATH]
               tandem account list [--config PATH]
               tandem account disable PRODUCT_TOKEN [--config PATH]
               tandem account enable PRODUCT_TOKEN [--config PATH]
               tandem account rotate-token PRODUCT_TOKEN [--config PATH]
               tandem account set-webhook PRODUCT_TOKEN URL|none [--format json|xml] [--config PATH]
               tandem account set-sms-countries PRODUCT_TOKEN [--mode enforce|monitor] [--allow REGIONS | --deny REGIONS]
                                   [--config PATH]

        create       Creates a sender account and prints its product token (a GUID), which authenticates
                     gateway requests as `authentication.producttoken` or the `X-CM-PRODUCTTOKEN` header.
                     The token is shown once.
        list         Lists every account: product token, whether it is active or disabled, creation time
                     (UTC) and name.
        disable      Refuses the account's gateway requests (a running server within 5 s) and its new apps;
                     deliveries already accepted go on. Accounts are never deleted.
        enable       Accepts the account's requests again.
        rotate-token Gives the account a new product token and prints it once; the old one stops working
                     (a running server within 5 s). Apps, messages and settings stay with the account.
        set-webhook  Sets where the account's status reports are posted (an http or https URL), in CM's
                     JSON (default) or XML shape; `none` stops reports. Reports already queued keep the
                     URL they were queued with.
        set-sms-countries
                     Sets where the gateway may send SMS for the account (the whole setting): --allow NL,BE
                     or --deny CU,001 (ISO region codes; 001 non-geographic). A recipient whose SMS would go
                     to a refused region is rejected (or, with push, keeps no SMS fallback); --mode monitor
                     sends anyway and logs it.

        """

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: ["config", "format", "mode", "allow", "deny"], usage: Self.usage) else { return }
        guard let subcommand = parsed.positional.first else { throw CommandFailure(.usage, Self.usage) }
        switch subcommand {
        case "create": try await create(parsed)
        case "list": try await list(parsed)
        case "disable": try await setDisabled(parsed, true)
        case "enable": try await setDisabled(parsed, false)
        case "rotate-token": try await rotateToken(parsed)
        case "set-webhook": try await setWebhook(parsed)
        case "set-sms-countries": try await setSMSCountries(parsed)
        default: throw CommandFailure(.usage, "unknown subcommand \"\(subcommand)\"\n\(Self.usage)")
        }
    }

    private func create(_ parsed: Arguments) async throws(CommandFailure) {
        let words = try parsed.expectPositional(2, usage: "tandem account create NAME [--config PATH]")
        let store = try await StoreOpener.open(configPath: parsed.option("config"), environment: environment)
        let account: Account
        do throws(Administration.Failure) {
            account = try await Administration(registry: store, now: ProcessIO.now).createAccount(name: words[1])
        } catch {
            await store.close()
            throw CommandFailure(error)
        }
        await store.close()
        ProcessIO.writeOutput("""
            account:       \(account.name)
            product token: \(account.productToken.text)

            """)
    }

    private func setWebhook(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem account set-webhook PRODUCT_TOKEN URL|none [--format json|xml] [--config PATH]"
        let words = try parsed.expectPositional(3, usage: usage)
        guard let token = ProductToken(words[1]) else { throw CommandFailure(.usage, "PRODUCT_TOKEN must be a GUID") }
        let url: String? = words[2] == "none" ? nil : words[2]
        if let url {
            let lowered = url.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), url.count > 8,
                  !url.contains(where: { $0 == " " || $0.isNewline }) else {
                throw CommandFailure(.usage, "URL must be an http:// or https:// URL, or none")
            }
        }
        let formatText = parsed.option("format") ?? "json"
        guard let format = WebhookFormat(wireName: formatText) else {
            throw CommandFailure(.usage, "--format must be json or xml, got \"\(formatText)\"")
        }
        let store = try await StoreOpener.open(configPath: parsed.option("config"), environment: environment)
        let found: Bool
        do {
            found = try await store.setWebhook(account: token, url: url, format: format)
        } catch {
            await store.close()
            throw CommandFailure(.failure, "cannot set the webhook: \(error)")
        }
        await store.close()
        guard found else { throw Self.unknownAccount(token) }
        ProcessIO.writeOutput(url.map { "status reports: \($0) (\(format.rawValue))\n" } ?? "status reports: off\n")
    }
}
