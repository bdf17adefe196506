import TandemCore

/// What the admin API asks of the running defence against SMS pumping: the active prefix blocks, and
/// lifting one (in memory and in the store, so that it stays lifted after a restart).
public protocol PrefixBlockControl: Sendable {
    func activePrefixBlocks(app: AppKey?) -> [PrefixBlock]
    /// False when the app had no active block on the prefix.
    func liftPrefixBlock(app: AppKey, prefix: NumberPrefix) async throws -> Bool
}

/// Where the device API's protection reports: `/metrics`, the block store and the block webhook.
struct ProtectionOutlets: Sendable {
    /// `tandem_pin_sms_blocked_total{reason,mode}`: PIN messages refused (`mode="enforce"`) or that would
    /// have been (`mode="monitor"`, sent anyway).
    let refused: CounterFamily
    /// `tandem_pin_conversion_blocks_total{mode}`: prefixes blocked because too few PINs were verified.
    let conversionBlocks: CounterFamily
    /// `tandem_pin_app_conversion_alerts_total`: apps whose PINs, over all prefixes, were verified too rarely.
    let appConversionAlerts: CounterFamily
    /// `tandem_device_registrations_limited_total`: new installs refused by a registration limit.
    let registrationsLimited: CounterFamily
    let store: (any PrefixBlockStore)?
    let webhookPoster: (any WebhookPoster)?
    let webhookURL: String?

    init(metrics: MetricsRegistry, store: (any PrefixBlockStore)?, webhookPoster: (any WebhookPoster)?, webhookURL: String?) {
        refused = metrics.counter("tandem_pin_sms_blocked_total",
                                  help: "PIN SMS and voice calls refused by the SMS pumping defence (mode=monitor: sent, would have been refused).",
                                  labels: ["reason", "mode"])
        conversionBlocks = metrics.counter("tandem_pin_conversion_blocks_total",
                                           help: "Number prefixes blocked for an app because too few of their PINs were verified.",
                                           labels: ["mode"])
        appConversionAlerts = metrics.counter("tandem_pin_app_conversion_alerts_total",
                                              help: "Apps whose PIN messages, over all prefixes, were verified below the conversion threshold (reported, not blocked).")
        registrationsLimited = metrics.counter("tandem_device_registrations_limited_total",
                                               help: "New installs refused by deviceAPI.limits.registrationsPerClientIP or registrationsPerApp.")
        self.store = store
        self.webhookPoster = webhookPoster
        self.webhookURL = webhookURL
    }
}

extension DeviceAPIService: PrefixBlockControl {
    /// Reads the blocks still active from the store (at start-up, before serving).
    public func restorePrefixBlocks() async throws {
        guard let store = protection.store else { return }
        let current = now()
        let blocks = try await store.activePrefixBlocks(now: current)
        limits.restore(blocks, now: current)
        if !blocks.isEmpty { logger.info("prefix blocks restored", ["count": .int(Int64(blocks.count))]) }
    }

    public func activePrefixBlocks(app: AppKey?) -> [PrefixBlock] {
        limits.activeBlocks(app: app, now: now())
    }

    public func liftPrefixBlock(app: AppKey, prefix: NumberPrefix) async throws -> Bool {
        let current = now()
        let inMemory = limits.lift(app: app, prefix: prefix, now: current)
        let stored = try await protection.store?.liftPrefixBlock(app: app, prefix: prefix, now: current) ?? false
        if inMemory || stored {
            logger.info("prefix block lifted", ["app": .string(app.text), "prefix": .string(prefix.text)])
        }
        return inMemory || stored
    }

    /// Decides a PIN message (SMS or voice call) for `challenge` and charges it; throws the wire refusal:
    /// 403 for a country the app does not allow, 429 with `Retry-After` for a spent budget or a blocked prefix.
    func admitPIN(_ challenge: PinChallenge, caller: Caller, now: Timestamp) async throws(Refusal) {
        let mode = caller.app.smsProtection.mode
        switch limits.chargePIN(msisdn: challenge.msisdn, app: caller.app, clientIP: caller.clientIP, now: now) {
        case .limited(let wait):
            protection.refused.increment(["rate_limit", ProtectionMode.enforce.rawValue])
            logger.warning("PIN request refused by an abuse limit", ["msisdn": .msisdn(challenge.msisdn),
                                                                      "app": .string(caller.app.key.text)])
            throw Refusal.limited(wait, "PIN requests")
        case .refused(let violation):
            protection.refused.increment([violation.reason, mode.rawValue])
            log("PIN request refused by the SMS pumping defence", violation, challenge, caller)
            throw refusal(violation, challenge: challenge, now: now)
        case .admitted(let monitored, let newBlock, let appAlert):
            for violation in monitored {
                protection.refused.increment([violation.reason, mode.rawValue])
                log("PIN request would be refused by the SMS pumping defence (monitor mode: sent)", violation, challenge, caller)
            }
            if let newBlock { await blocked(newBlock, mode: mode) }
            if let appAlert { alerted(appAlert) }
        }
    }

    /// The app's PIN conversion over all its prefixes fell below the threshold: logged, counted, posted.
    private func alerted(_ alert: AppConversionAlert) {
        protection.appConversionAlerts.increment()
        logger.warning("PIN conversion of the app is below the threshold (all prefixes)", [
            "app": .string(alert.app.text), "sent": .int(Int64(alert.sent)), "verified": .int(Int64(alert.verified)),
        ])
        post(.object([
            JSONMember(key: "event", value: .string("appConversionLow")),
            JSONMember(key: "appKey", value: .string(alert.app.text)),
            JSONMember(key: "at", value: .string(ISO8601.format(alert.at))),
            JSONMember(key: "sent", value: .number(String(alert.sent))),
            JSONMember(key: "verified", value: .number(String(alert.verified))),
        ]), what: "app conversion alert")
    }

    /// Posts a report to the protection webhook when one is configured, without holding up the request.
    private func post(_ document: JSONValue, what: String) {
        guard let poster = protection.webhookPoster, let url = protection.webhookURL else { return }
        let body = Array(document.compactText.utf8)
        let logger = logger
        Task {
            if case .failed(let reason, _) = await poster.post(url: url, contentType: "application/json", body: body) {
                logger.error("protection webhook failed", ["report": .string(what), "error": .string(reason)])
            }
        }
    }

    private func refusal(_ violation: PinSMSViolation, challenge: PinChallenge, now: Timestamp) -> Refusal {
        switch violation {
        case .countryDenied(let region):
            return Refusal(.forbidden, "PIN messages to numbers in \(region.text) are not offered by this app")
        case .prefixBlocked(let until):
            return Refusal(.tooManyRequests, "PIN requests to this number range are suspended; try again later",
                           retryAfter: until - now)
        case .prefixVelocity(let wait):
            return Refusal.limited(wait, "PIN requests to this number range")
        case .dailyCap(let wait):
            return Refusal.limited(wait, "PIN requests to this number today")
        }
    }

    private func log(_ message: String, _ violation: PinSMSViolation, _ challenge: PinChallenge, _ caller: Caller) {
        logger.warning(message, ["reason": .string(violation.reason), "msisdn": .msisdn(challenge.msisdn),
                                 "app": .string(caller.app.key.text), "mode": .string(caller.app.smsProtection.mode.rawValue),
                                 "region": .string(CallingCodes.region(of: challenge.msisdn).text),
                                 "prefix": .string(NumberPrefix(challenge.msisdn).text)])
    }

    /// A prefix just fell below the conversion threshold: stored (it survives a restart), logged, counted,
    /// and posted to the webhook when one is configured (without holding up the request).
    private func blocked(_ block: PrefixBlock, mode: ProtectionMode) async {
        protection.conversionBlocks.increment([mode.rawValue])
        logger.warning("number prefix blocked: too few PINs verified", [
            "app": .string(block.app.text), "prefix": .string(block.prefix.text), "region": .string(block.region.text),
            "sent": .int(Int64(block.sent)), "verified": .int(Int64(block.verified)), "until": .string(ISO8601.format(block.until)),
            "mode": .string(mode.rawValue),
        ])
        if let store = protection.store {
            do {
                try await store.insert(block)
            } catch {
                logger.error("prefix block not stored", ["prefix": .string(block.prefix.text), "error": .string("\(error)")])
            }
        }
        post(Self.webhookDocument(block, mode: mode), what: "prefix block \(block.prefix.text)")
    }

    /// `{"event":"prefixBlocked","appKey","prefix","region","since","until","sent","verified","mode"}`.
    static func webhookDocument(_ block: PrefixBlock, mode: ProtectionMode) -> JSONValue {
        .object([
            JSONMember(key: "event", value: .string("prefixBlocked")),
            JSONMember(key: "appKey", value: .string(block.app.text)),
            JSONMember(key: "prefix", value: .string(block.prefix.text)),
            JSONMember(key: "region", value: .string(block.region.text)),
            JSONMember(key: "since", value: .string(ISO8601.format(block.since))),
            JSONMember(key: "until", value: .string(ISO8601.format(block.until))),
            JSONMember(key: "sent", value: .number(String(block.sent))),
            JSONMember(key: "verified", value: .number(String(block.verified))),
            JSONMember(key: "mode", value: .string(mode.rawValue)),
        ])
    }
}
