import TandemCore
import TandemStore

/// `tandem app create NAME --account TOKEN [--type Default|OTP|Critical]`: prints the app key and secret.
struct AppCommand {
    static let usage = """
        usage: tandem app create NAME --account PRODUCT_TOKEN [--type Default|OTP|Critical] [--config PATH]

        Creates an app owned by the account with PRODUCT_TOKEN and prints its app key (senders put it in
        `appKey`; SDKs sign with it as `kid`) and app secret (SDKs sign requests with it). --type is the
        appMessageType used when a message names none (default: Default). The secret is shown once.

        """

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: ["config", "account", "type"], usage: Self.usage) else { return }
        let words = try parsed.expectPositional(2, usage: "tandem app create NAME --account PRODUCT_TOKEN [--type Default|OTP|Critical]")
        guard words[0] == "create" else { throw CommandFailure(.usage, "unknown subcommand \"\(words[0])\"\n\(Self.usage)") }
        let name = words[1].trimmingASCIISpaces()
        guard Account.isValidName(name) else {
            throw CommandFailure(.usage, "NAME must be 1 to 100 printable characters")
        }
        guard let tokenText = parsed.option("account") else {
            throw CommandFailure(.usage, "--account PRODUCT_TOKEN is required")
        }
        guard let token = ProductToken(tokenText) else {
            throw CommandFailure(.usage, "--account must be a product token like 00000000-0000-0000-0000-000000000000")
        }
        let type = try parsed.option("type").map { text throws(CommandFailure) in
            guard let type = AppMessageType(wireName: text) else {
                throw CommandFailure(.usage, "--type must be Default, OTP or Critical, got \"\(text)\"")
            }
            return type
        } ?? .default

        let store = try StoreOpener.open(configPath: parsed.option("config"), environment: environment)
        let account: Account?
        do {
            account = try store.account(productToken: token)
        } catch {
            await store.close()
            throw CommandFailure(.failure, "cannot read accounts: \(error)")
        }
        guard let account, !account.disabled else {
            await store.close()
            throw CommandFailure(.dataError, "no active account has product token \(token)")
        }
        var generator = SystemRandomNumberGenerator()
        let app = App(key: .random(using: &generator), secret: .random(using: &generator), name: name,
                      account: account.productToken, defaultMessageType: type, createdAt: ProcessIO.unixMilliseconds())
        do {
            try await store.insert(app)
        } catch {
            await store.close()
            throw CommandFailure(.failure, "cannot create the app: \(error)")
        }
        await store.close()
        ProcessIO.writeOutput("""
            app:          \(app.name) (account \(account.name))
            default type: \(app.defaultMessageType.wireName)
            app key:      \(app.key.text)
            app secret:   \(app.secret.text)

            """)
    }
}
