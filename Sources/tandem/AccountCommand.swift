import TandemCore
import TandemStore

/// `tandem account create NAME`: a sender account; prints its new product token.
struct AccountCommand {
    static let usage = """
        usage: tandem account create NAME [--config PATH]

        Creates a sender account and prints its product token (a GUID), which authenticates gateway requests
        as `authentication.producttoken` or the `X-CM-PRODUCTTOKEN` header. The token is shown once.

        """

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: ["config"], usage: Self.usage) else { return }
        let words = try parsed.expectPositional(2, usage: "tandem account create NAME [--config PATH]")
        guard words[0] == "create" else { throw CommandFailure(.usage, "unknown subcommand \"\(words[0])\"\n\(Self.usage)") }
        let name = words[1].trimmingASCIISpaces()
        guard Account.isValidName(name) else {
            throw CommandFailure(.usage, "NAME must be 1 to 100 printable characters")
        }
        let store = try StoreOpener.open(configPath: parsed.option("config"), environment: environment)
        var generator = SystemRandomNumberGenerator()
        let account = Account(name: name, productToken: .random(using: &generator), createdAt: ProcessIO.unixMilliseconds())
        do {
            try await store.insert(account)
        } catch {
            await store.close()
            throw CommandFailure(.failure, "cannot create the account: \(error)")
        }
        await store.close()
        ProcessIO.writeOutput("""
            account:       \(account.name)
            product token: \(account.productToken.text)

            """)
    }
}
