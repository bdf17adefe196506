/// One app as `tandem app show` and `GET /admin/apps/{appKey}` see it: what ``AppSummary`` has plus how
/// many device registrations the app has in each verification status.
///
/// Not guaranteed: that the counts and the app row come from one snapshot unless the implementation says
/// so (the SQLite store reads both in one read transaction).
public struct AppDetails: Sendable, Hashable {
    public let app: App
    public let accountName: String
    public let pushCredentials: AppPushCredentials
    /// Every ``RegistrationStatus``, with 0 for statuses no registration has.
    public let registrations: [RegistrationStatus: Int]

    /// `registrations` may omit statuses; they are filled in with 0.
    public init(app: App, accountName: String, pushCredentials: AppPushCredentials, registrations: [RegistrationStatus: Int]) {
        self.app = app
        self.accountName = accountName
        self.pushCredentials = pushCredentials
        var complete = registrations
        for status in RegistrationStatus.allCases where complete[status] == nil { complete[status] = 0 }
        self.registrations = complete
    }

    public init(summary: AppSummary, registrations: [RegistrationStatus: Int]) {
        self.init(app: summary.app, accountName: summary.accountName, pushCredentials: summary.pushCredentials,
                  registrations: registrations)
    }

    public var summary: AppSummary { AppSummary(app: app, accountName: accountName, pushCredentials: pushCredentials) }

    /// All registrations, whatever their status.
    public var registrationCount: Int { registrations.values.reduce(0, +) }
}
