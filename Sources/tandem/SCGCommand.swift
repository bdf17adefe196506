import TandemAPI
import TandemCore
import TandemStore

/// `tandem scg token create|list|revoke`: the SCG messaging API's bearer tokens of an account.
///
/// Guaranteed: a token is printed once, by `create`; only its SHA-256 digest is stored, so a lost token
/// cannot be shown again (create another, revoke the lost one). A running server stops accepting a revoked
/// token within 5 seconds.
struct SCGCommand {
    static let usage = """
        usage: tandem scg token create PRODUCT_TOKEN [--label TEXT] [--config PATH]
               tandem scg token list PRODUCT_TOKEN [--config PATH]
               tandem scg token revoke PRODUCT_TOKEN TOKEN_ID [--config PATH]

        token create   Creates a bearer token for the account's SCG API requests
                       (`Authorization: Bearer <token>` on /scg-external-api/api/v1/messaging/…) and prints it
                       once, with its id. --label says what it is for (at most 100 characters).
        token list     Lists the account's tokens: id, label, created, revoked (never the tokens).
        token revoke   Revokes the account's token TOKEN_ID.

        """

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: ["config", "label"], usage: Self.usage) else { return }
        guard parsed.positional.first == "token", parsed.positional.count >= 2 else { throw CommandFailure(.usage, Self.usage) }
        switch parsed.positional[1] {
        case "create": try await create(parsed)
        case "list": try await list(parsed)
        case "revoke": try await revoke(parsed)
        default: throw CommandFailure(.usage, "unknown subcommand \"token \(parsed.positional[1])\"\n\(Self.usage)")
        }
    }

    private func create(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem scg token create PRODUCT_TOKEN [--label TEXT] [--config PATH]"
        let words = try parsed.expectPositional(3, usage: usage)
        let account = try Self.productToken(words[2])
        let label = parsed.option("label") ?? ""
        guard label.count <= 100, !label.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw CommandFailure(.usage, "--label must be at most 100 characters without control characters")
        }
        let token = SCGTokenAuthenticator.newToken()
        let info = try await withStore(parsed) { store throws(CommandFailure) -> SCGTokenInfo? in
            do {
                return try await store.insertSCGToken(account: account, digest: SCGTokenAuthenticator.digest(token), label: label,
                                                      createdAt: Timestamp(milliseconds: ProcessIO.unixMilliseconds()))
            } catch {
                throw CommandFailure(.failure, "cannot create the token: \(error)")
            }
        }
        guard let info else { throw Self.unknownAccount(account) }
        ProcessIO.writeOutput("""
            token id: \(info.id)
            token:    \(token)

            """)
    }

    private func list(_ parsed: Arguments) async throws(CommandFailure) {
        let words = try parsed.expectPositional(3, usage: "tandem scg token list PRODUCT_TOKEN [--config PATH]")
        let account = try Self.productToken(words[2])
        let tokens = try await withStore(parsed) { store throws(CommandFailure) -> [SCGTokenInfo]? in
            do {
                return try await store.scgTokens(account: account)
            } catch {
                throw CommandFailure(.failure, "cannot list the tokens: \(error)")
            }
        }
        guard let tokens else { throw Self.unknownAccount(account) }
        var out = "id\tcreated\trevoked\tlabel\n"
        for token in tokens {
            out += "\(token.id)\t\(ISO8601.format(token.createdAt))\t\(token.revokedAt.map { ISO8601.format($0) } ?? "-")\t\(token.label)\n"
        }
        ProcessIO.writeOutput(out)
    }

    private func revoke(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem scg token revoke PRODUCT_TOKEN TOKEN_ID [--config PATH]"
        let words = try parsed.expectPositional(4, usage: usage)
        let account = try Self.productToken(words[2])
        guard let id = Int64(words[3]), id > 0 else { throw CommandFailure(.usage, "TOKEN_ID must be a token id (`tandem scg token list`)") }
        let revoked = try await withStore(parsed) { store throws(CommandFailure) -> Bool in
            do {
                return try await store.revokeSCGToken(account: account, id: id,
                                                       at: Timestamp(milliseconds: ProcessIO.unixMilliseconds()))
            } catch {
                throw CommandFailure(.failure, "cannot revoke the token: \(error)")
            }
        }
        guard revoked else { throw CommandFailure(.dataError, "the account has no live token \(id)") }
        ProcessIO.writeOutput("token \(id) revoked\n")
    }

    /// Opens the store, runs `body`, and closes the store whether `body` succeeded or not.
    private func withStore<T>(_ parsed: Arguments, _ body: (any TandemDatabase) async throws(CommandFailure) -> T) async throws(CommandFailure) -> T {
        try await StoreOpener.with(configPath: parsed.option("config"), environment: environment, body)
    }

    private static func productToken(_ text: String) throws(CommandFailure) -> ProductToken {
        guard let token = ProductToken(text) else { throw CommandFailure(.usage, "PRODUCT_TOKEN must be a GUID") }
        return token
    }

    private static func unknownAccount(_ token: ProductToken) -> CommandFailure {
        CommandFailure(.dataError, "no account has product token \(token.text)")
    }
}
