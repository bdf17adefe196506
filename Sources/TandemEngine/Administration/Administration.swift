import TandemCore

/// Creating accounts and apps: the one place their rules live, whoever asks (the CLI, the admin API).
/// New product tokens, app keys and secrets are random (getrandom(2)); names are trimmed and checked; an app
/// is created only under an account that exists and is not disabled.
public struct Administration: Sendable {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Names are 1–100 characters without control characters.
        case invalidName
        case unknownAccount(ProductToken)
        case accountDisabled(Account)
        /// The registry failed (logged by the caller with this description).
        case store(String)

        public var description: String {
            switch self {
            case .invalidName: "a name must be 1 to 100 printable characters"
            case .unknownAccount(let token): "no account has product token \(token)"
            case .accountDisabled(let account): "the account \(JSONText.quoted(account.name)) is disabled"
            case .store(let problem): problem
            }
        }
    }

    let registry: any AppRegistry
    let now: @Sendable () -> Timestamp

    public init(registry: any AppRegistry, now: @escaping @Sendable () -> Timestamp) {
        self.registry = registry
        self.now = now
    }

    public func createAccount(name: String) async throws(Failure) -> Account {
        let name = try Self.checked(name)
        var generator = SystemRandomNumberGenerator()
        let account = Account(name: name, productToken: .random(using: &generator), createdAt: now().milliseconds)
        do {
            try await registry.insert(account)
        } catch {
            throw .store("cannot create the account: \(error)")
        }
        return account
    }

    /// A new app of the account with `token`, with a new key and secret; returns it with its account.
    public func createApp(name: String, account token: ProductToken,
                          defaultMessageType: AppMessageType) async throws(Failure) -> (app: App, account: Account) {
        let name = try Self.checked(name)
        let found: Account?
        do {
            found = try await registry.account(productToken: token)
        } catch {
            throw .store("cannot read the account: \(error)")
        }
        guard let account = found else { throw .unknownAccount(token) }
        guard !account.disabled else { throw .accountDisabled(account) }
        var generator = SystemRandomNumberGenerator()
        let app = App(key: .random(using: &generator), secret: .random(using: &generator), name: name,
                      account: account.productToken, defaultMessageType: defaultMessageType, createdAt: now().milliseconds)
        do {
            try await registry.insert(app)
        } catch {
            throw .store("cannot create the app: \(error)")
        }
        return (app, account)
    }

    private static func checked(_ name: String) throws(Failure) -> String {
        let trimmed = name.trimmingASCIISpaces()
        guard Account.isValidName(trimmed) else { throw .invalidName }
        return trimmed
    }
}
