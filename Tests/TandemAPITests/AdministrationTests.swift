import Testing
import TandemCore
import TandemEngine

/// Account and app creation, as the CLI and the admin API both do it.
@Suite("Administration")
struct AdministrationTests {
    @Test("accounts and apps get fresh credentials and trimmed names; bad names, unknown, disabled accounts and store failures are refused")
    func creation() async throws {
        let registry = InMemoryAppRegistry()
        let administration = Administration(registry: registry, now: { Timestamp(milliseconds: 42) })
        let account = try await administration.createAccount(name: "  Acme  ")
        #expect(account.name == "Acme" && account.createdAt == 42)
        let (app, owner) = try await administration.createApp(name: "Shop", account: account.productToken, defaultMessageType: .otp)
        #expect(owner == account && app.account == account.productToken && app.defaultMessageType == .otp)
        let second = try await administration.createApp(name: "Shop", account: account.productToken, defaultMessageType: .default).app
        #expect(second.key != app.key && second.secret != app.secret)
        #expect(try registry.apps().count == 2)

        await #expect(throws: Administration.Failure.self) { try await administration.createAccount(name: " \u{7} ") }
        var generator = SystemRandomNumberGenerator()
        let stranger = ProductToken.random(using: &generator)
        await #expect(throws: Administration.Failure.self) {
            try await administration.createApp(name: "X", account: stranger, defaultMessageType: .default)
        }
        registry.disable(account.productToken)
        do {
            _ = try await administration.createApp(name: "X", account: account.productToken, defaultMessageType: .default)
            Issue.record("an app was created under a disabled account")
        } catch {
            guard case .accountDisabled = error else { Issue.record("\(error)"); return }
        }
        let failing = Administration(registry: InMemoryAppRegistry(failing: true), now: { Timestamp(milliseconds: 0) })
        do {
            _ = try await failing.createAccount(name: "A")
            Issue.record("a store failure went unreported")
        } catch {
            guard case .store = error else { Issue.record("\(error)"); return }
        }
    }
}
