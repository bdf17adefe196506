/// What the app manager (the admin API) reads and changes: sender accounts and their apps.
///
/// Implemented by the SQLite `Store` (TandemStore); tests use an in-memory fake. Writes return once they
/// are durable; the `Bool`-returning ones answer false, changing nothing, when no app has the key.
/// Not guaranteed: that an implementation checks an app's account is active when an app is inserted
/// (callers check, then insert), or that a rotated secret stops being accepted by components that cached it.
public protocol AppRegistry: Sendable {
    /// Every account, disabled or not, oldest first.
    func accounts() async throws -> [Account]
    func account(productToken: ProductToken) async throws -> Account?
    /// Stores a new account; its product token must be new.
    func insert(_ account: Account) async throws
    /// Every app with its account's name and push credentials, oldest first.
    func apps() async throws -> [AppSummary]
    /// One app with its registration counts; nil when no app has the key.
    func appDetails(key: AppKey) async throws -> AppDetails?
    /// Stores a new app under the account with `app.account` (which must exist).
    func insert(_ app: App) async throws
    /// Replaces the app's secret: requests signed with the old one are refused from then on.
    func rotateSecret(key: AppKey, to secret: AppSecret) async throws -> Bool
    /// Sets (nil: removes) the app's APNs credentials, leaving its FCM credentials as they are.
    func setAPNsCredentials(key: AppKey, _ credentials: APNsCredentials?) async throws -> Bool
    /// Sets (nil: removes) the app's FCM credentials, leaving its APNs credentials as they are.
    func setFCMCredentials(key: AppKey, _ credentials: FCMCredentials?) async throws -> Bool
    /// The type used for the app's messages that name none.
    func setDefaultMessageType(key: AppKey, _ type: AppMessageType) async throws -> Bool
    /// Replaces the app's SMS protection (mode, country rule, PIN length).
    func setSMSProtection(key: AppKey, _ protection: SMSProtection) async throws -> Bool
    /// Replaces the account's country rule for gateway SMS; false when no account has the token.
    func setSMSCountries(productToken: ProductToken, _ policy: SMSCountryPolicy) async throws -> Bool
}
