import Synchronization
import TandemCore

/// An ``AppRegistry`` in memory, for endpoint tests that should not need SQLite; `failing` makes every call
/// throw, to check how store failures are answered.
final class InMemoryAppRegistry: AppRegistry {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "disk on fire at /var/lib/tandem" }
    }

    private struct State {
        var accounts: [Account] = []
        var apps: [App] = []
        var credentials: [AppKey: AppPushCredentials] = [:]
        var registrations: [AppKey: [RegistrationStatus: Int]] = [:]
    }

    private let state = Mutex(State())
    let failing: Bool

    init(failing: Bool = false) { self.failing = failing }

    func accounts() throws -> [Account] {
        try check()
        return state.withLock { $0.accounts }
    }

    func account(productToken: ProductToken) throws -> Account? {
        try check()
        return state.withLock { $0.accounts.first { $0.productToken == productToken } }
    }

    func insert(_ account: Account) async throws {
        try check()
        state.withLock { $0.accounts.append(account) }
    }

    func apps() throws -> [AppSummary] {
        try check()
        return state.withLock { state in state.apps.map { Self.summary($0, in: state) } }
    }

    func appDetails(key: AppKey) throws -> AppDetails? {
        try check()
        return state.withLock { state in
            state.apps.first { $0.key == key }.map {
                AppDetails(summary: Self.summary($0, in: state), registrations: state.registrations[key] ?? [:])
            }
        }
    }

    func insert(_ app: App) async throws {
        try check()
        state.withLock { $0.apps.append(app) }
    }

    func rotateSecret(key: AppKey, to secret: AppSecret) async throws -> Bool {
        try update(key) { app, _ in
            app = App(key: app.key, secret: secret, name: app.name, account: app.account,
                      defaultMessageType: app.defaultMessageType, createdAt: app.createdAt, smsProtection: app.smsProtection)
        }
    }

    func setAPNsCredentials(key: AppKey, _ credentials: APNsCredentials?) async throws -> Bool {
        try update(key) { _, push in push.apns = credentials }
    }

    func setFCMCredentials(key: AppKey, _ credentials: FCMCredentials?) async throws -> Bool {
        try update(key) { _, push in push.fcm = credentials }
    }

    func setDefaultMessageType(key: AppKey, _ type: AppMessageType) async throws -> Bool {
        try update(key) { app, _ in
            app = App(key: app.key, secret: app.secret, name: app.name, account: app.account,
                      defaultMessageType: type, createdAt: app.createdAt, smsProtection: app.smsProtection)
        }
    }

    func setSMSProtection(key: AppKey, _ protection: SMSProtection) async throws -> Bool {
        try update(key) { app, _ in
            app = App(key: app.key, secret: app.secret, name: app.name, account: app.account,
                      defaultMessageType: app.defaultMessageType, createdAt: app.createdAt, smsProtection: protection)
        }
    }

    func setSMSCountries(productToken: ProductToken, _ policy: SMSCountryPolicy) async throws -> Bool {
        try check()
        return state.withLock { state in
            guard let index = state.accounts.firstIndex(where: { $0.productToken == productToken }) else { return false }
            let old = state.accounts[index]
            state.accounts[index] = Account(name: old.name, productToken: old.productToken, createdAt: old.createdAt,
                                            disabled: old.disabled, smsCountries: policy)
            return true
        }
    }

    /// Test hooks.
    func setRegistrations(_ counts: [RegistrationStatus: Int], for key: AppKey) {
        state.withLock { $0.registrations[key] = counts }
    }

    func disable(_ token: ProductToken) {
        state.withLock { state in
            state.accounts = state.accounts.map {
                $0.productToken == token ? Account(name: $0.name, productToken: $0.productToken, createdAt: $0.createdAt,
                                                   disabled: true) : $0
            }
        }
    }

    func storedApp(_ key: AppKey) -> App? { state.withLock { $0.apps.first { $0.key == key } } }

    private func check() throws {
        if failing { throw Failure() }
    }

    private func update(_ key: AppKey, _ change: (inout App, inout AppPushCredentials) -> Void) throws -> Bool {
        try check()
        return state.withLock { state in
            guard let index = state.apps.firstIndex(where: { $0.key == key }) else { return false }
            var push = state.credentials[key] ?? AppPushCredentials()
            change(&state.apps[index], &push)
            state.credentials[key] = push
            return true
        }
    }

    private static func summary(_ app: App, in state: State) -> AppSummary {
        AppSummary(app: app, accountName: state.accounts.first { $0.productToken == app.account }?.name ?? "?",
                   pushCredentials: state.credentials[app.key] ?? AppPushCredentials())
    }
}
