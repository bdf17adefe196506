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
        public var protection = Protection()
        public init() {}
    }

    /// `deviceAPI.verification`: PINs.
    public struct Verification: Sendable, Hashable {
        /// Digits in a PIN unless the app sets its own (`tandem app set-sms-protection --pin-length`). Six:
        /// with 5 attempts per PIN and 3 PINs per number per hour, a 4-digit PIN gives a guesser 15 tries in
        /// 10,000 (0.15 %) per hour — and whoever verifies another's number receives that person's OTP pushes.
        public var pinLength = 6
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
        /// New installs (`POST /v1.0/deviceregistrations`) from one client IP address. Carrier-grade NAT puts
        /// many phones behind one address: raise it rather than remove it.
        public var registrationsPerClientIP = Budget(limit: 30, window: .seconds(3_600))
        /// New installs of one app (a launch-day spike is far below 1,000 a minute per app for most apps).
        public var registrationsPerApp = Budget(limit: 1_000, window: .seconds(60))
        public init() {}
    }

    /// `deviceAPI.protection`: the defence against SMS pumping in front of PIN SMS and voice calls
    /// (``PinSMSGuard``). Each app chooses its country rule, PIN length and `enforce`/`monitor` mode; these
    /// are the limits every app shares.
    public struct Protection: Sendable, Hashable {
        /// PIN messages per app and number prefix (the number without its last 4 digits).
        public var pinPerPrefix = Budget(limit: 10, window: .seconds(600))
        /// PIN messages per number, whatever the app.
        public var pinPerMSISDNDaily = Budget(limit: 10, window: .seconds(86_400))
        /// nil (`"conversion": null`): no conversion monitoring.
        public var conversion: PinSMSGuard.ConversionRule? = PinSMSGuard.ConversionRule()
        /// Where a new prefix block is posted as JSON (nil: nowhere; it is logged and counted either way).
        public var webhook: String?
        public init() {}

        public var guardSettings: PinSMSGuard.Settings {
            PinSMSGuard.Settings(prefixVelocity: (pinPerPrefix.limit, pinPerPrefix.window),
                                 dailyCap: (pinPerMSISDNDaily.limit, pinPerMSISDNDaily.window), conversion: conversion)
        }
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
        case hosts, timestampWindow, updateIDLifetime, maxTop, verification, limits, protection
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
        protection = try c.decodeIfPresent(Configuration.Protection.self, forKey: .protection) ?? protection
    }
}

extension Configuration.Protection: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case pinPerPrefix, pinPerMSISDNDaily, conversion, webhook }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        pinPerPrefix = try c.decodeIfPresent(Configuration.Budget.self, forKey: .pinPerPrefix) ?? pinPerPrefix
        pinPerMSISDNDaily = try c.decodeIfPresent(Configuration.Budget.self, forKey: .pinPerMSISDNDaily) ?? pinPerMSISDNDaily
        if c.contains(.conversion) {
            conversion = try c.decodeNil(forKey: .conversion) ? nil : try c.decode(PinSMSGuard.ConversionRule.self, forKey: .conversion)
        }
        if c.contains(.webhook), try !c.decodeNil(forKey: .webhook) { webhook = try c.decodeURL(forKey: .webhook) }
    }
}

extension PinSMSGuard.ConversionRule: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case window, minimumSent, threshold, blockFor }

    /// `{"window": "1h", "minimumSent": 20, "threshold": 0.2, "blockFor": "6h"}`; every key optional.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.window) { window = try c.decodeDuration(forKey: .window, in: .seconds(60)...(.seconds(7 * 86_400))) }
        if c.contains(.minimumSent) { minimumSent = try c.decode(Int.self, forKey: .minimumSent, in: 1...1_000_000) }
        if c.contains(.threshold) {
            threshold = try c.decode(Double.self, forKey: .threshold)
            guard threshold > 0, threshold <= 1 else { throw c.fail(.threshold, "must be a fraction above 0 and at most 1 (0.2 = 20 % verified)") }
        }
        if c.contains(.blockFor) { blockFor = try c.decodeDuration(forKey: .blockFor, in: .seconds(60)...(.seconds(30 * 86_400))) }
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
    enum CodingKeys: String, CodingKey, CaseIterable {
        case pinPerMSISDN, pinPerApp, pinPerClientIP, verifyPerClientIP, registrationsPerClientIP, registrationsPerApp
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        pinPerMSISDN = try c.decodeIfPresent(Configuration.Budget.self, forKey: .pinPerMSISDN) ?? pinPerMSISDN
        pinPerApp = try c.decodeIfPresent(Configuration.Budget.self, forKey: .pinPerApp) ?? pinPerApp
        pinPerClientIP = try c.decodeIfPresent(Configuration.Budget.self, forKey: .pinPerClientIP) ?? pinPerClientIP
        verifyPerClientIP = try c.decodeIfPresent(Configuration.Budget.self, forKey: .verifyPerClientIP) ?? verifyPerClientIP
        registrationsPerClientIP = try c.decodeIfPresent(Configuration.Budget.self, forKey: .registrationsPerClientIP)
            ?? registrationsPerClientIP
        registrationsPerApp = try c.decodeIfPresent(Configuration.Budget.self, forKey: .registrationsPerApp) ?? registrationsPerApp
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
