extension Configuration {
    /// `mymsp`: the myMSP Device Push Notification API (`/external/notifications/…`). Its app methods carry
    /// no password, so they are limited per client address and per user; a spent budget answers 429 with
    /// `Retry-After` and `N` / `13`. A budget set to `null` is not enforced.
    public struct MyMSP: Sendable, Hashable {
        /// `subscribe` requests from one client address.
        public var subscribesPerClientIP: Budget? = Budget(limit: 30, window: .seconds(3_600))
        /// `subscribe` requests for one user (all its app's installs).
        public var subscribesPerUser: Budget? = Budget(limit: 1_000, window: .seconds(3_600))
        /// `get` requests from one client address.
        public var getsPerClientIP: Budget? = Budget(limit: 120, window: .seconds(60))
        /// `get` requests for one user.
        public var getsPerUser: Budget? = Budget(limit: 6_000, window: .seconds(60))
        /// Notifications (`send`s) one user may make per UTC day; beyond it error 11. Nil: no quota. Counted
        /// in memory: a restart starts the day's count again.
        public var messagesPerDay: Int?
        /// How long events stay available to the poll (at least this long; purged hourly).
        public var eventRetention: Duration = .seconds(7 * 86_400)
        /// The policy notifications are sent under (its push lifetime and retries).
        public var messageType: AppMessageType = .default
        public init() {}
    }
}

extension Configuration.MyMSP: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case subscribesPerClientIP, subscribesPerUser, getsPerClientIP, getsPerUser, messagesPerDay, eventRetention, messageType
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        func budget(_ key: CodingKeys, _ current: Configuration.Budget?) throws -> Configuration.Budget? {
            guard c.contains(key) else { return current }
            return try c.decodeNil(forKey: key) ? nil : try c.decode(Configuration.Budget.self, forKey: key)
        }
        subscribesPerClientIP = try budget(.subscribesPerClientIP, subscribesPerClientIP)
        subscribesPerUser = try budget(.subscribesPerUser, subscribesPerUser)
        getsPerClientIP = try budget(.getsPerClientIP, getsPerClientIP)
        getsPerUser = try budget(.getsPerUser, getsPerUser)
        if c.contains(.messagesPerDay), try !c.decodeNil(forKey: .messagesPerDay) {
            messagesPerDay = try c.decode(Int.self, forKey: .messagesPerDay, in: 1...1_000_000_000)
        }
        if c.contains(.eventRetention) {
            eventRetention = try c.decodeDuration(forKey: .eventRetention, in: .seconds(7 * 86_400)...(.seconds(366 * 86_400)))
        }
        if c.contains(.messageType) {
            let text = try c.decode(String.self, forKey: .messageType)
            guard let type = AppMessageType(wireName: text) else { throw c.fail(.messageType, "expected Default, OTP or Critical") }
            messageType = type
        }
    }
}
