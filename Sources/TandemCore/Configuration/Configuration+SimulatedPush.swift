extension Configuration {
    /// `simulator.push`: what the simulated push service and the simulated app do with each device's push.
    ///
    /// Each target of a push is matched against `rules` in order; the first rule that matches decides, and
    /// `default` decides when none does. A rule matches when every condition it names holds: the token starts
    /// with `tokenPrefix` (ASCII case ignored), the number ends with `msisdnSuffix`, and — checked last, and
    /// only then — a draw from the simulator's generator (seeded with `seed`) falls below `probability`.
    /// The same seed and the same order of pushes give the same behaviours. Not guaranteed: the order in
    /// which a running server's concurrent deliveries reach the simulator, so a server run is repeatable
    /// only as far as its pushes arrive in the same order.
    ///
    /// Out of the box: tokens starting `dead` are refused as dead (like APNs 410), `noack` are never
    /// acknowledged (the policy's fallback sends an SMS), `noread` are acknowledged after 200 ms and never
    /// read, and every other token is acknowledged after 200 ms and read 1 s after that. A file's `rules`
    /// replace these three rules entirely.
    public struct SimulatedPush: Sendable, Hashable {
        /// How long the simulated push service takes to answer.
        public var latency: Duration = .milliseconds(5)
        /// Seeds the generator probability rules draw from (0 to 2^63 − 1 in files).
        public var seed: UInt64 = 0
        public var rules: [SimulatedPushRule] = SimulatedPushRule.builtIn
        public var `default`: SimulatedPushBehaviour = .ackAndRead(ackAfter: SimulatedPushBehaviour.defaultAckAfter,
                                                                  readAfter: SimulatedPushBehaviour.defaultReadAfter)

        public init() {}

        static let latencyRange: ClosedRange<Duration> = .zero...(.seconds(60))
    }

    /// One of `simulator.push.rules`.
    public struct SimulatedPushRule: Sendable, Hashable {
        /// The push token starts with this (ASCII case ignored); nil matches any token.
        public var tokenPrefix: String?
        /// The recipient's number ends with these digits; nil matches any number.
        public var msisdnSuffix: String?
        /// The share of matching pushes the rule takes (0 to 1), drawn from the seeded generator; nil is all.
        public var probability: Double?
        public var behaviour: SimulatedPushBehaviour

        public init(tokenPrefix: String? = nil, msisdnSuffix: String? = nil, probability: Double? = nil,
                    behaviour: SimulatedPushBehaviour) {
            self.tokenPrefix = tokenPrefix
            self.msisdnSuffix = msisdnSuffix
            self.probability = probability
            self.behaviour = behaviour
        }

        /// The rules used when the file names none: `dead…`, `noack…` and `noread…` tokens.
        public static let builtIn: [SimulatedPushRule] = [
            SimulatedPushRule(tokenPrefix: "dead", behaviour: .tokenDead),
            SimulatedPushRule(tokenPrefix: "noack", behaviour: .neverAck),
            SimulatedPushRule(tokenPrefix: "noread", behaviour: .ack(after: SimulatedPushBehaviour.defaultAckAfter)),
        ]

        /// Whether the token and number conditions hold (the probability is the simulator's to draw).
        public func matches(token: PushToken, msisdn: MSISDN?) -> Bool {
            if let tokenPrefix, !Self.hasPrefixIgnoringASCIICase(token.text, tokenPrefix) { return false }
            if let msisdnSuffix, msisdn?.e164.hasSuffix(msisdnSuffix) != true { return false }
            return true
        }

        private static func hasPrefixIgnoringASCIICase(_ text: String, _ prefix: String) -> Bool {
            let fold: (UInt8) -> UInt8 = { (65...90).contains($0) ? $0 | 0x20 : $0 }
            var remaining = text.utf8.makeIterator()
            for byte in prefix.utf8 {
                guard let next = remaining.next(), fold(next) == fold(byte) else { return false }
            }
            return true
        }
    }

    /// What happens to one device's simulated push.
    public enum SimulatedPushBehaviour: Sendable, Hashable {
        /// Accepted; the app acknowledges it `after` the push was accepted and never reports it read.
        case ack(after: Duration)
        /// Accepted; the app acknowledges it `ackAfter` the push and reports it read `readAfter` the ack.
        case ackAndRead(ackAfter: Duration, readAfter: Duration)
        /// Accepted, and nothing follows: the fallback timers decide.
        case neverAck
        /// Refused for good, like APNs 410 `Unregistered` (the registration is marked invalid).
        case tokenDead
        /// Refused after the push service kept failing temporarily (like APNs 503 until the retries ran out).
        case transientFailure

        public static let defaultAckAfter: Duration = .milliseconds(200)
        public static let defaultReadAfter: Duration = .seconds(1)

        /// The names used in files.
        public enum Name: String, Sendable, Hashable, CaseIterable {
            case ack, ackAndRead, neverAck, tokenDead, transientFailure
        }

        public var name: Name {
            switch self {
            case .ack: .ack
            case .ackAndRead: .ackAndRead
            case .neverAck: .neverAck
            case .tokenDead: .tokenDead
            case .transientFailure: .transientFailure
            }
        }
    }
}

extension Configuration.SimulatedPush: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case latency, seed, rules, `default` }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.latency) { latency = try c.decodeDuration(forKey: .latency, in: Self.latencyRange) }
        if c.contains(.seed) { seed = UInt64(try c.decode(Int64.self, forKey: .seed, in: 0...Int64.max)) }
        if c.contains(.rules) {
            rules = try c.decode([Configuration.SimulatedPushRule].self, forKey: .rules)
            guard rules.count <= 1_000 else { throw c.fail(.rules, "at most 1000 rules, got \(rules.count)") }
        }
        if c.contains(.default) { `default` = try c.decode(DefaultBehaviour.self, forKey: .default).behaviour }
    }

    /// `default`: a behaviour without conditions.
    struct DefaultBehaviour: Decodable {
        enum CodingKeys: String, CodingKey, CaseIterable { case behaviour, ackAfter, readAfter }
        let behaviour: Configuration.SimulatedPushBehaviour

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            behaviour = try .decode(c, behaviour: .behaviour, ackAfter: .ackAfter, readAfter: .readAfter)
        }
    }
}

extension Configuration.SimulatedPushRule: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case tokenPrefix, msisdnSuffix, probability, behaviour, ackAfter, readAfter }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        behaviour = try .decode(c, behaviour: .behaviour, ackAfter: .ackAfter, readAfter: .readAfter)
        if c.contains(.tokenPrefix) {
            let prefix = try c.decode(String.self, forKey: .tokenPrefix)
            guard (1...64).contains(prefix.utf8.count), prefix.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw c.fail(.tokenPrefix, "expected 1 to 64 printable ASCII characters without spaces, got \"\(prefix)\"")
            }
            tokenPrefix = prefix
        }
        if c.contains(.msisdnSuffix) { msisdnSuffix = try c.decodeMSISDNSuffix(forKey: .msisdnSuffix) }
        if c.contains(.probability) {
            let share = try c.decode(Double.self, forKey: .probability)
            guard share.isFinite, (0...1).contains(share) else {
                throw c.fail(.probability, "must be between 0 and 1, got \(share)")
            }
            probability = share
        }
    }
}

extension Configuration.SimulatedPushBehaviour {
    /// `behaviour` with its optional `ackAfter` and `readAfter`, which only the behaviours that use them accept.
    static func decode<Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, behaviour: Key, ackAfter: Key,
                                       readAfter: Key) throws -> Self {
        let name = try c.decodeChoice(Name.self, forKey: behaviour)
        let ack = c.contains(ackAfter) ? try c.decodeDuration(forKey: ackAfter, in: .zero...(.seconds(86_400))) : nil
        let read = c.contains(readAfter) ? try c.decodeDuration(forKey: readAfter, in: .zero...(.seconds(7 * 86_400))) : nil
        func withoutTimings(_ behaviour: Self) throws -> Self {
            if ack != nil { throw c.fail(ackAfter, "applies only to behaviours \"ack\" and \"ackAndRead\"") }
            if read != nil { throw c.fail(readAfter, "applies only to behaviour \"ackAndRead\"") }
            return behaviour
        }
        switch name {
        case .ack:
            if read != nil { throw c.fail(readAfter, "applies only to behaviour \"ackAndRead\"") }
            return .ack(after: ack ?? defaultAckAfter)
        case .ackAndRead: return .ackAndRead(ackAfter: ack ?? defaultAckAfter, readAfter: read ?? defaultReadAfter)
        case .neverAck: return try withoutTimings(.neverAck)
        case .tokenDead: return try withoutTimings(.tokenDead)
        case .transientFailure: return try withoutTimings(.transientFailure)
        }
    }
}

extension KeyedDecodingContainer {
    /// The last digits of a number (1 to 15 ASCII digits), as simulator rules match them.
    func decodeMSISDNSuffix(forKey key: Key) throws -> String {
        let suffix = try decode(String.self, forKey: key)
        guard (1...15).contains(suffix.utf8.count), suffix.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw fail(key, "expected 1 to 15 digits, got \"\(suffix)\"")
        }
        return suffix
    }
}
