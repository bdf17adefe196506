extension Configuration {
    /// `dashboard`: who may read the dashboard besides the admin.
    public struct Dashboard: Sendable, Hashable {
        /// A read-only token (`{"env": "TANDEM_DASHBOARD_TOKEN"}`): it opens `/dashboard`'s reads — the metrics
        /// (`/admin/metrics`) and the message search (`/admin/messages`) — and nothing else of the admin API.
        /// The admin token opens them too. With neither configured the dashboard is off.
        public var token: SecretReference?
        public init() {}
    }
}

extension Configuration.Dashboard: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case token }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        token = try c.decodeIfPresent(SecretReference.self, forKey: .token)
    }
}
