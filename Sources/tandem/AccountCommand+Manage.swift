import Foundation
import TandemCore
import TandemStore

/// `tandem account list`, `disable`, `enable` and `rotate-token`.
extension AccountCommand {
    func list(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem account list [--config PATH]"
        try parsed.expectOnly(["config"], usage: usage)
        _ = try parsed.expectPositional(1, usage: usage)
        let accounts = try await withStore(parsed) { store throws(CommandFailure) -> [Account] in
            do {
                return try await store.accounts()
            } catch {
                throw CommandFailure(.failure, "cannot read accounts: \(error)")
            }
        }
        guard !accounts.isEmpty else {
            ProcessIO.writeOutput("no accounts (`tandem account create NAME` makes one)\n")
            return
        }
        var text = "PRODUCT TOKEN                         STATE     CREATED (UTC)         NAME\n"
        for account in accounts {
            let state = account.disabled ? "disabled" : "active"
            let created = String(ISO8601.format(Timestamp(milliseconds: account.createdAt)).prefix(19)) + "Z"
            text += "\(account.productToken.text)  \(state.padding(toLength: 8, withPad: " ", startingAt: 0))  \(created)  \(account.name)\n"
        }
        ProcessIO.writeOutput(text)
    }

    func setDisabled(_ parsed: Arguments, _ disabled: Bool) async throws(CommandFailure) {
        let usage = "tandem account \(disabled ? "disable" : "enable") PRODUCT_TOKEN [--config PATH]"
        try parsed.expectOnly(["config"], usage: usage)
        let token = try Self.productToken(try parsed.expectPositional(2, usage: usage)[1])
        let found = try await withStore(parsed) { store throws(CommandFailure) -> Bool in
            do {
                return try await store.setDisabled(account: token, disabled)
            } catch {
                throw CommandFailure(.failure, "cannot \(disabled ? "disable" : "enable") the account: \(error)")
            }
        }
        guard found else { throw Self.unknownAccount(token) }
        ProcessIO.writeOutput(disabled
            ? "account \(token.text) disabled: a running server refuses its requests within 5 seconds\n"
            : "account \(token.text) enabled\n")
    }

    func rotateToken(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem account rotate-token PRODUCT_TOKEN [--config PATH]"
        try parsed.expectOnly(["config"], usage: usage)
        let token = try Self.productToken(try parsed.expectPositional(2, usage: usage)[1])
        var generator = SystemRandomNumberGenerator()
        let newToken = ProductToken.random(using: &generator)
        let found = try await withStore(parsed) { store throws(CommandFailure) -> Bool in
            do {
                return try await store.replaceProductToken(token, with: newToken)
            } catch {
                throw CommandFailure(.failure, "cannot rotate the product token: \(error)")
            }
        }
        guard found else { throw Self.unknownAccount(token) }
        ProcessIO.writeOutput("""
            product token: \(newToken.text)

            The old token stops working on a running server within 5 seconds. The new one is shown only now.

            """)
    }

    /// Opens the store, runs `body`, and closes the store whether `body` succeeded or not.
    func withStore<T>(_ parsed: Arguments, _ body: (any TandemDatabase) async throws(CommandFailure) -> T) async throws(CommandFailure) -> T {
        try await StoreOpener.with(configPath: parsed.option("config"), environment: environment, body)
    }

    static func productToken(_ text: String) throws(CommandFailure) -> ProductToken {
        guard let token = ProductToken(text) else {
            throw CommandFailure(.usage, "PRODUCT_TOKEN must be a GUID like 00000000-0000-0000-0000-000000000000, got \"\(text)\"")
        }
        return token
    }

    static func unknownAccount(_ token: ProductToken) -> CommandFailure {
        CommandFailure(.dataError, "no account has product token \(token.text) (`tandem account list` shows them)")
    }
}
