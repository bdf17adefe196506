extension Configuration {
    /// `scheduler`: the timer wheel.
    public struct SchedulerSettings: Sendable, Hashable {
        /// Timer resolution and the run loop's longest sleep.
        public var tick: Duration = .milliseconds(10)
        /// Timers to presize the wheel for (pending fallbacks at peak).
        public var expectedTimers = 100_000
        /// How long a submitted SMS still waits for its final report after its validity ended; with none by
        /// then it ends Failed (`smsReportMissing`). Covers an SMSC's own "expired" report, Kannel's validity
        /// rounded up to whole minutes, and DLRs Kannel retries after Tandem was down.
        public var smsReportWait: Duration = Delivery.defaultSMSReportWait
        public init() {}
    }

    /// `gateway`: the CM MESSAGES gateway.
    public struct Gateway: Sendable, Hashable {
        /// How long an SMS may wait for its final report when the sender gave no `validity`.
        public var defaultSMSValidity: Duration = .seconds(48 * 3_600)
        /// How long an `Idempotency-Key` is remembered (at least 24 h).
        public var idempotencyRetention: Duration = .seconds(24 * 3_600)
        /// A `msg` with at least this many accepted recipients is spooled: stored as one recipient list,
        /// answered, and started in the background; 0: never.
        public var spoolRecipients = 100
        /// Recipients the spool drainer starts per transaction.
        public var spoolChunk = 256
        /// In-flight deliveries above which the drainer starts no more spooled recipients: a memory guard (each
        /// in-flight delivery holds about 1 KB), not a rate.
        public var spoolMaxInFlight = 1_000_000
        public init() {}
    }

    /// `statusReports`: posting reports to senders' webhooks.
    public struct StatusReports: Sendable, Hashable {
        public var initialRetryDelay: Duration = .seconds(5)
        public var maximumRetryDelay: Duration = .seconds(3_600)
        /// How long a failing report is retried before it is abandoned.
        public var giveUpAfter: Duration = .seconds(7 * 86_400)
        public var pollInterval: Duration = .milliseconds(250)
        public var concurrency = 16
        /// Per-post timeout.
        public var timeout: Duration = .seconds(10)
        public init() {}
    }
}

extension Configuration.SchedulerSettings: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case tick, expectedTimers, smsReportWait }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.tick) { tick = try c.decodeDuration(forKey: .tick, in: .milliseconds(1)...(.seconds(1))) }
        if c.contains(.expectedTimers) { expectedTimers = try c.decode(Int.self, forKey: .expectedTimers, in: 0...100_000_000) }
        if c.contains(.smsReportWait) { smsReportWait = try c.decodeDuration(forKey: .smsReportWait, in: .zero...(.seconds(7 * 86_400))) }
    }
}

extension Configuration.Gateway: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case defaultSMSValidity, idempotencyRetention, spoolRecipients, spoolChunk, spoolMaxInFlight
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.defaultSMSValidity) {
            defaultSMSValidity = try c.decodeDuration(forKey: .defaultSMSValidity, in: .seconds(1)...(.seconds(30 * 86_400)))
        }
        if c.contains(.idempotencyRetention) {
            idempotencyRetention = try c.decodeDuration(forKey: .idempotencyRetention,
                                                        in: .seconds(24 * 3_600)...(.seconds(365 * 86_400)))
        }
        if c.contains(.spoolRecipients) { spoolRecipients = try c.decode(Int.self, forKey: .spoolRecipients, in: 0...1_000_000) }
        if c.contains(.spoolChunk) { spoolChunk = try c.decode(Int.self, forKey: .spoolChunk, in: 1...10_000) }
        if c.contains(.spoolMaxInFlight) {
            spoolMaxInFlight = try c.decode(Int.self, forKey: .spoolMaxInFlight, in: 1...100_000_000)
        }
    }
}

extension Configuration.StatusReports: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case initialRetryDelay, maximumRetryDelay, giveUpAfter, pollInterval, concurrency, timeout
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.initialRetryDelay) {
            initialRetryDelay = try c.decodeDuration(forKey: .initialRetryDelay, in: .milliseconds(1)...(.seconds(86_400)))
        }
        if c.contains(.maximumRetryDelay) {
            maximumRetryDelay = try c.decodeDuration(forKey: .maximumRetryDelay, in: .milliseconds(1)...(.seconds(7 * 86_400)))
        }
        if c.contains(.giveUpAfter) { giveUpAfter = try c.decodeDuration(forKey: .giveUpAfter, in: .seconds(1)...(.seconds(365 * 86_400))) }
        if c.contains(.pollInterval) { pollInterval = try c.decodeDuration(forKey: .pollInterval, in: .milliseconds(1)...(.seconds(60))) }
        if c.contains(.concurrency) { concurrency = try c.decode(Int.self, forKey: .concurrency, in: 1...1_024) }
        if c.contains(.timeout) { timeout = try c.decodeDuration(forKey: .timeout, in: .milliseconds(10)...(.seconds(300))) }
        if maximumRetryDelay < initialRetryDelay {
            throw c.fail(.maximumRetryDelay, "must not be shorter than initialRetryDelay")
        }
    }
}
