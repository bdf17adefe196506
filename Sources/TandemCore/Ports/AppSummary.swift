/// One app as the app manager lists it: the app, the name of the account that owns it, and its push
/// credentials (references only; see ``AppPushCredentials``).
///
/// `app.secret` is present because ``App`` carries it; whoever shows a summary must leave it out
/// (`AppSecret.description` is `****`, so string interpolation cannot leak it).
public struct AppSummary: Sendable, Hashable {
    public let app: App
    public let accountName: String
    public let pushCredentials: AppPushCredentials

    public init(app: App, accountName: String, pushCredentials: AppPushCredentials) {
        self.app = app
        self.accountName = accountName
        self.pushCredentials = pushCredentials
    }
}
