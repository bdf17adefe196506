/// The defence against SMS pumping in front of every PIN SMS (and PIN voice call): the app's country
/// rule, a velocity limit per number prefix and app, a daily cap per number, and conversion monitoring
/// (PIN SMS sent vs verified per prefix and app over a sliding window; below the threshold the prefix is
/// blocked for a while). The app's conversion over all its prefixes is watched too — a run spread thinly
/// over many prefixes stays under every prefix's `minimumSent` — and reported (``checkAppConversion(app:now:)``),
/// not blocked: stopping every PIN of an app would lock its real users out.
///
/// Pure and single-threaded: every call takes `now`; the shell keeps one guard behind a lock, persists the
/// blocks ``recordSent(_:now:)`` returns, and reloads them with ``restore(_:now:)`` after a restart.
/// Velocity, daily and conversion counts live only in memory: a restart forgives them (a block does not
/// end with a restart).
///
/// One request, in order: ``evaluate(_:now:)`` lists what the request violates (nothing is counted);
/// if the shell sends — allowed, or the app is in `monitor` mode — it calls ``recordSent(_:now:)``;
/// a verified PIN calls ``recordVerified(app:msisdn:now:)``.
public struct PinSMSGuard: Sendable {
    public struct Settings: Sendable, Hashable {
        /// PIN messages per app and number prefix.
        public var prefixVelocity: (limit: Int, window: Duration)
        /// PIN messages per number, whatever the app.
        public var dailyCap: (limit: Int, window: Duration)
        /// nil: no conversion monitoring.
        public var conversion: ConversionRule?

        public init(prefixVelocity: (limit: Int, window: Duration) = (10, .seconds(600)),
                    dailyCap: (limit: Int, window: Duration) = (10, .seconds(86_400)),
                    conversion: ConversionRule? = ConversionRule()) {
            self.prefixVelocity = prefixVelocity
            self.dailyCap = dailyCap
            self.conversion = conversion
        }

        public static func == (lhs: Settings, rhs: Settings) -> Bool {
            lhs.prefixVelocity == rhs.prefixVelocity && lhs.dailyCap == rhs.dailyCap && lhs.conversion == rhs.conversion
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(prefixVelocity.limit)
            hasher.combine(prefixVelocity.window)
            hasher.combine(dailyCap.limit)
            hasher.combine(dailyCap.window)
            hasher.combine(conversion)
        }
    }

    /// When a prefix counts as pumped: at least `minimumSent` PIN messages in `window` and fewer than
    /// `threshold` (a fraction) of them verified. The block lasts `blockFor`.
    public struct ConversionRule: Sendable, Hashable {
        public var window: Duration
        public var minimumSent: Int
        public var threshold: Double
        public var blockFor: Duration

        public init(window: Duration = .seconds(3_600), minimumSent: Int = 20, threshold: Double = 0.2,
                    blockFor: Duration = .seconds(6 * 3_600)) {
            self.window = window
            self.minimumSent = minimumSent
            self.threshold = threshold
            self.blockFor = blockFor
        }
    }

    /// One PIN message about to be sent.
    public struct Request: Sendable, Hashable {
        public let app: AppKey
        public let msisdn: MSISDN
        public let protection: SMSProtection

        public init(app: AppKey, msisdn: MSISDN, protection: SMSProtection) {
            self.app = app
            self.msisdn = msisdn
            self.protection = protection
        }

        public var prefix: NumberPrefix { NumberPrefix(msisdn) }
        public var region: RegionCode { CallingCodes.region(of: msisdn) }
    }

    private struct Key: Hashable, Sendable {
        let app: AppKey
        let prefix: NumberPrefix
        var text: String { app.text + " " + prefix.text }
    }

    public let settings: Settings
    private var velocity: RateLimiter
    private var daily: RateLimiter
    private var windows: [Key: ConversionWindow] = [:]
    private var blocks: [Key: PrefixBlock] = [:]
    private var appWindows: [AppKey: ConversionWindow] = [:]
    private var appAlerts: [AppKey: Timestamp] = [:]

    public init(settings: Settings = Settings()) {
        self.settings = settings
        velocity = RateLimiter(limit: settings.prefixVelocity.limit, window: settings.prefixVelocity.window)
        daily = RateLimiter(limit: settings.dailyCap.limit, window: settings.dailyCap.window)
    }

    /// What sending this PIN message would violate, most serious first (country, blocked prefix, prefix
    /// velocity, daily cap); empty when nothing. Counts nothing.
    public func evaluate(_ request: Request, now: Timestamp) -> [PinSMSViolation] {
        var violations: [PinSMSViolation] = []
        let region = request.region
        if !request.protection.countries.permits(region) { violations.append(.countryDenied(region)) }
        let key = Key(app: request.app, prefix: request.prefix)
        if let block = blocks[key], block.isActive(now: now) { violations.append(.prefixBlocked(until: block.until)) }
        if case .limited(let wait) = velocity.check(key.text, now: now) { violations.append(.prefixVelocity(retryAfter: wait)) }
        if case .limited(let wait) = daily.check(request.msisdn.e164, now: now) { violations.append(.dailyCap(retryAfter: wait)) }
        return violations
    }

    /// Counts a PIN message that is being sent. Returns the block it starts when the prefix's conversion
    /// just fell below the threshold (the shell stores, logs, counts and reports it); nil otherwise.
    public mutating func recordSent(_ request: Request, now: Timestamp) -> PrefixBlock? {
        let key = Key(app: request.app, prefix: request.prefix)
        _ = velocity.attempt(key.text, now: now)
        _ = daily.attempt(request.msisdn.e164, now: now)
        guard let rule = settings.conversion else { return nil }
        expire(key, now: now)
        windows[key, default: ConversionWindow(window: rule.window)].recordSent(now: now)
        appWindows[request.app, default: ConversionWindow(window: rule.window)].recordSent(now: now)
        guard blocks[key] == nil, let window = windows[key] else { return nil }
        let sent = window.sent(now: now), verified = window.verified(now: now)
        guard sent >= rule.minimumSent, Double(verified) < rule.threshold * Double(sent) else { return nil }
        let block = PrefixBlock(app: request.app, prefix: key.prefix, region: request.region, since: now,
                                until: now + rule.blockFor, sent: sent, verified: verified)
        blocks[key] = block
        return block
    }

    /// A PIN sent to `msisdn` for `app` was verified.
    public mutating func recordVerified(app: AppKey, msisdn: MSISDN, now: Timestamp) {
        guard let rule = settings.conversion else { return }
        let key = Key(app: app, prefix: NumberPrefix(msisdn))
        windows[key, default: ConversionWindow(window: rule.window)].recordVerified(now: now)
        appWindows[app, default: ConversionWindow(window: rule.window)].recordVerified(now: now)
    }

    /// The app's conversion over all its prefixes, after a send: an alert when at least `minimumSent` PIN
    /// messages in the window were verified below the threshold — at most one per app per `window`.
    public mutating func checkAppConversion(app: AppKey, now: Timestamp) -> AppConversionAlert? {
        guard let rule = settings.conversion, let window = appWindows[app] else { return nil }
        if let last = appAlerts[app], now - last < rule.window { return nil }
        let sent = window.sent(now: now), verified = window.verified(now: now)
        guard sent >= rule.minimumSent, Double(verified) < rule.threshold * Double(sent) else { return nil }
        appAlerts[app] = now
        return AppConversionAlert(app: app, at: now, sent: sent, verified: verified)
    }

    /// Blocks read back from the store after a restart (expired ones are ignored).
    public mutating func restore(_ stored: [PrefixBlock], now: Timestamp) {
        for block in stored where block.isActive(now: now) {
            blocks[Key(app: block.app, prefix: block.prefix)] = block
        }
    }

    /// Ends the app's block on `prefix` and starts its conversion window afresh (else the next PIN SMS
    /// would block it again at once). False when there was no active block.
    public mutating func lift(app: AppKey, prefix: NumberPrefix, now: Timestamp) -> Bool {
        let key = Key(app: app, prefix: prefix)
        windows[key] = nil
        guard let block = blocks.removeValue(forKey: key) else { return false }
        return block.isActive(now: now)
    }

    /// Active blocks, of one app or of all, by prefix.
    public func activeBlocks(app: AppKey? = nil, now: Timestamp) -> [PrefixBlock] {
        blocks.values.filter { $0.isActive(now: now) && (app == nil || $0.app == app) }
            .sorted { ($0.app.text, $0.prefix) < ($1.app.text, $1.prefix) }
    }

    /// Forgets counts and blocks that no longer matter.
    public mutating func purge(now: Timestamp) {
        velocity.purge(now: now)
        daily.purge(now: now)
        for key in Array(blocks.keys) { expire(key, now: now) }
        windows = windows.filter { !$0.value.isEmpty(now: now) }
        appWindows = appWindows.filter { !$0.value.isEmpty(now: now) }
        if let window = settings.conversion?.window { appAlerts = appAlerts.filter { now - $0.value < window } }
    }

    /// An expired block goes, and its window starts afresh.
    private mutating func expire(_ key: Key, now: Timestamp) {
        guard let block = blocks[key], !block.isActive(now: now) else { return }
        blocks[key] = nil
        windows[key] = nil
    }
}
