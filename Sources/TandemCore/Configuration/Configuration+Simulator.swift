extension Configuration {
    /// `simulator`: the in-process providers' behaviour (`providers: "simulator"`), so that `make run` shows
    /// every path — pushes acknowledged and read, never acknowledged (the SMS fallback), dead tokens, SMS
    /// delivered, failed or expired — without credentials or network.
    ///
    /// ```json
    /// "simulator": {
    ///   "push": { "latency": "5ms", "seed": 42,
    ///             "rules": [ { "tokenPrefix": "dead", "behaviour": "tokenDead" },
    ///                        { "msisdnSuffix": "7", "probability": 0.2, "behaviour": "neverAck" } ],
    ///             "default": { "behaviour": "ackAndRead", "ackAfter": "200ms", "readAfter": "1s" } },
    ///   "sms":  { "latency": "5ms", "reportAfter": "500ms",
    ///             "rules": [ { "msisdnSuffix": "000", "outcome": "failed" },
    ///                        { "msisdnSuffix": "001", "outcome": "expired", "after": "2s" } ] },
    ///   "logEvents": true
    /// }
    /// ```
    ///
    /// The flat keys of the first simulator, `pushLatency`, `smsLatency` and `smsReportAfter`, are still read
    /// (as `push.latency`, `sms.latency` and `sms.reportAfter`), but not beside the section they belong to.
    public struct Simulator: Sendable, Hashable {
        public var push = SimulatedPush()
        public var sms = SimulatedSMS()
        /// One info line per simulated event (push verdict, receipt, SMS submitted, report): what a newcomer
        /// reads to see the fallback happen. Turn off for benchmarks, where it is a line per message.
        public var logEvents = true

        public init() {}

        /// `push.latency`, under its first name.
        public var pushLatency: Duration {
            get { push.latency }
            set { push.latency = newValue }
        }

        /// `sms.latency`, under its first name.
        public var smsLatency: Duration {
            get { sms.latency }
            set { sms.latency = newValue }
        }

        /// `sms.reportAfter`, under its first name.
        public var smsReportAfter: Duration {
            get { sms.reportAfter }
            set { sms.reportAfter = newValue }
        }
    }
}

extension Configuration.Simulator: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case push, sms, logEvents, pushLatency, smsLatency, smsReportAfter }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        push = try c.decodeIfPresent(Configuration.SimulatedPush.self, forKey: .push) ?? push
        sms = try c.decodeIfPresent(Configuration.SimulatedSMS.self, forKey: .sms) ?? sms
        if c.contains(.logEvents) { logEvents = try c.decode(Bool.self, forKey: .logEvents) }
        if c.contains(.pushLatency) {
            guard !c.contains(.push) else { throw c.fail(.pushLatency, "the old spelling of push.latency: write it there") }
            pushLatency = try c.decodeDuration(forKey: .pushLatency, in: Configuration.SimulatedPush.latencyRange)
        }
        for (key, path) in [(CodingKeys.smsLatency, "sms.latency"), (.smsReportAfter, "sms.reportAfter")] where c.contains(key) {
            guard !c.contains(.sms) else { throw c.fail(key, "the old spelling of \(path): write it there") }
        }
        if c.contains(.smsLatency) { smsLatency = try c.decodeDuration(forKey: .smsLatency, in: Configuration.SimulatedSMS.latencyRange) }
        if c.contains(.smsReportAfter) {
            smsReportAfter = try c.decodeDuration(forKey: .smsReportAfter, in: Configuration.SimulatedSMS.reportRange)
        }
    }
}
