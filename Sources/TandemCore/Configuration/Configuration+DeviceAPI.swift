extension Configuration {
    /// `deviceAPI`: the app REST API v1.0 the SDKs talk to (registrations, verification, messages, receipts).
    public struct DeviceAPI: Sendable, Hashable {
        /// Host names the SDKs sign (`S` carries a host fixed at build time); the `Host` header is always
        /// accepted as well.
        public var hosts: [String] = []
        /// How far a signature's `ts` may be from the server's clock, either way; a signature is also
        /// refused when replayed within this window.
        public var timestampWindow: Duration = .seconds(300)
        /// How long after its message was accepted a final delivery still takes receipts by `UpdateID`
        /// (the spec guarantees UpdateIDs for 24 hours). In-flight deliveries always take them.
        public var updateIDLifetime: Duration = .seconds(24 * 3_600)
        /// The largest `$top` honoured (a larger one is lowered), and the page size without `$top`.
        public var maxTop = 1_000
        public var verification = Verification()
        public var limits = Limits()
        public init() {}
    }

    /// `deviceAPI.verification`: PINs.
    public struct Verification: Sendable, Hashable {
        public var pinLength = 4
        public var pinLifetime: Duration = .seconds(600)
        /// Wrong PINs allowed before a new PIN must be requested.
        public var maxAttempts = 5
        /// The PIN SMS's sender (alphanumeric, ≤ 11 characters, or a number).
        public var sender = "Verify"
        /// The PIN SMS's text: `{pin}` is the PIN, `{app}` the app's name.
        public var text = "Your {app} verification code is {pin}"
        /// The server key PINs are derived from (at least 32 bytes). Without it, a random key is kept in
        /// the file `<database path>.pin-key` (created with mode 0600), beside — never inside — the database.
        public var pinKey: SecretReference?
        public init() {}

        public var settings: VerificationSettings {
            VerificationSettings(pinLength: pinLength, pinLifetime: pinLifetime, maxAttempts: maxAttempts)
        }
    }

    /// `deviceAPI.limits`: abuse limits against SMS pumping and PIN brute force; exceeding one answers 429
    /// with `Retry-After`.
    public struct Limits: Sendable, Hashable {
        /// PIN SMS and voice calls to one number.
        public var pinPerMSISDN = Budget(limit: 3, window: .seconds(3_600))
        /// PIN SMS and voice calls for one app.
        public var pinPerApp = Budget(limit: 100, window: .seconds(60))
        /// PIN SMS and voice calls asked for from one client IP address.
        public var pinPerClientIP = Budget(limit: 10, window: .seconds(3_600))
        /// `VerificationCode` attempts from one client IP address.
        public var verifyPerClientIP = Budget(limit: 30, window: .seconds(3_600))
        public init() {}
    }

    /// At most `limit` events in any `window`.
    public struct Budget: Sendable, Hashable {
        public var limit: Int
        public var window: Duration
        public init(limit: Int, window: Duration) {
            self.limit = limit
            self.window = window
        }
    }
}

extension Configuration.DeviceAPI: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case hosts, timestampWindow, updateIDLifetime, maxTop, verification, limits
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.hosts) {
            hosts = try c.decode([String].self, forKey: .hosts)
            if let bad = hosts.first(where: { $0.isEmpty || $0.contains(" ") || $0.contains("/") }) {
                throw c.fail(.hosts, "expected host names like api.example.com, got \"\(bad)\"")
            }
        }
        if c.contains(.timestampWindow) {
            timestampWindow = try c.decodeDuration(forKey: .timestampWindow, in: .seconds(1)...(.seconds(86_400)))
        }
        if c.contains(.updateIDLifetime) {
            updateIDLifetime = try c.decodeDuration(forKey: .updateIDLifetime, in: .seconds(24 * 3_600)...(.seconds(365 * 86_400)))
        }
        if c.contains(.maxTop) { maxTop = try c.decode(Int.self, forKey: .maxTop, in: 1...100_000) }
        verification = try c.decodeIfPresent(Configuration.Verification.self, forKey: .verification) ?? verification
        limits = try c.decodeIfPresent(Configuration.Limits.self, forKey: .limits) ?? limits
    }
}

extension Configuration.Verification: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case pinLength, pinLifetime, maxAttempts, sender, text, pinKey }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.pinLength) { pinLength = try c.decode(Int.self, forKey: .pinLength, in: 4...10) }
        if c.contains(.pinLifetime) { pinLifetime = try c.decodeDuration(forKey: .pinLifetime, in: .seconds(30)...(.seconds(86_400))) }
        if c.contains(.maxAttempts) { maxAttempts = try c.decode(Int.self, forKey: .maxAttempts, in: 1...100) }
        if c.contains(.sender) {
            sender = try c.decode(String.self, forKey: .sender)
            guard !sender.isEmpty, sender.utf8.count <= 16 else { throw c.fail(.sender, "must be 1 to 16 characters") }
        }
        if c.contains(.text) {
            text = try c.decode(String.self, forKey: .text)
            guard text.contains("{pin}") else { throw c.fail(.text, "must contain {pin}") }
        }
        pinKey = try c.decodeIfPresent(SecretReference.self, forKey: .pinKey)
    }
}

extension Configuration.Limits: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case pinPerMSISDN, pinPerApp, pinPerClientIP, verifyPerClientIP }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        pinPerMSISDN = try c.decodeIfPresent(Configuration.Budget.self, forKey: .pinPerMSISDN) ?? pinPerMSISDN
        pinPerApp = try c.decodeIfPresent(Configuration.Budget.self, forKey: .pinPerApp) ?? pinPerApp
        pinPerClientIP = try c.decodeIfPresent(Configuration.Budget.self, forKey: .pinPerClientIP) ?? pinPerClientIP
        verifyPerClientIP = try c.decodeIfPresent(Configuration.Budget.self, forKey: .verifyPerClientIP) ?? verifyPerClientIP
    }
}

extension Configuration.Budget: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case limit, window }

    /// `{"limit": 3, "window": "1h"}`; both required.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(limit: try c.decode(Int.self, forKey: .limit, in: 1...1_000_000),
                  window: try c.decodeDuration(forKey: .window, in: .seconds(1)...(.seconds(7 * 86_400))))
    }
}
