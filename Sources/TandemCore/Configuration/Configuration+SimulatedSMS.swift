extension Configuration {
    /// `simulator.sms`: what the simulated SMSC does with each SMS.
    ///
    /// The number is matched against `rules` in order (the first rule whose `msisdnSuffix` ends the number
    /// decides); an SMS no rule matches is reported delivered `reportAfter` after it was submitted. Out of the
    /// box, numbers ending in `000` fail; a file's `rules` replace that rule entirely.
    public struct SimulatedSMS: Sendable, Hashable {
        /// How long the simulated SMSC takes to accept (or refuse) an SMS.
        public var latency: Duration = .milliseconds(5)
        /// When the report comes, for SMS whose rule gives no `after`.
        public var reportAfter: Duration = .milliseconds(500)
        public var rules: [SimulatedSMSRule] = SimulatedSMSRule.builtIn

        public init() {}

        static let latencyRange: ClosedRange<Duration> = .zero...(.seconds(60))
        static let reportRange: ClosedRange<Duration> = .zero...(.seconds(86_400))
    }

    /// One of `simulator.sms.rules`.
    public struct SimulatedSMSRule: Sendable, Hashable {
        /// The recipient's number ends with these digits.
        public var msisdnSuffix: String
        public var outcome: SimulatedSMSOutcome
        /// When the report comes, instead of `reportAfter`; only for outcomes that report.
        public var after: Duration?

        public init(msisdnSuffix: String, outcome: SimulatedSMSOutcome, after: Duration? = nil) {
            self.msisdnSuffix = msisdnSuffix
            self.outcome = outcome
            self.after = after
        }

        /// The rules used when the file names none: numbers ending in `000` fail.
        public static let builtIn = [SimulatedSMSRule(msisdnSuffix: "000", outcome: .failed)]

        public func matches(_ msisdn: MSISDN) -> Bool { msisdn.e164.hasSuffix(msisdnSuffix) }
    }

    /// What the simulated SMSC reports for an SMS.
    public enum SimulatedSMSOutcome: String, Sendable, Hashable, CaseIterable {
        case delivered
        case failed
        /// The SMSC gave up at the end of the validity period (SMPP `stat:EXPIRED`).
        case expired
        /// Accepted, and never reported: the SMS validity timer decides.
        case none
        /// Refused at submission (no reference, no report), like an SMSC's `submit_sm_resp` error.
        case rejected

        /// The report's outcome; nil for the outcomes that send no report.
        public var reported: SMSOutcome? {
            switch self {
            case .delivered: .delivered
            case .failed: .failed
            case .expired: .expired
            case .none, .rejected: nil
            }
        }
    }
}

extension Configuration.SimulatedSMS: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case latency, reportAfter, rules }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.latency) { latency = try c.decodeDuration(forKey: .latency, in: Self.latencyRange) }
        if c.contains(.reportAfter) { reportAfter = try c.decodeDuration(forKey: .reportAfter, in: Self.reportRange) }
        if c.contains(.rules) {
            rules = try c.decode([Configuration.SimulatedSMSRule].self, forKey: .rules)
            guard rules.count <= 1_000 else { throw c.fail(.rules, "at most 1000 rules, got \(rules.count)") }
        }
    }
}

extension Configuration.SimulatedSMSRule: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case msisdnSuffix, outcome, after }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        msisdnSuffix = try c.decodeMSISDNSuffix(forKey: .msisdnSuffix)
        outcome = try c.decodeChoice(Configuration.SimulatedSMSOutcome.self, forKey: .outcome)
        if c.contains(.after) {
            guard outcome.reported != nil else {
                throw c.fail(.after, "applies only to outcomes that report (delivered, failed, expired)")
            }
            after = try c.decodeDuration(forKey: .after, in: Configuration.SimulatedSMS.reportRange)
        }
    }
}
