import Synchronization
import TandemCore

/// The device API's abuse limits (config `deviceAPI.limits`) and its defence against SMS pumping (config
/// `deviceAPI.protection` and each app's ``SMSProtection``, decided by the pure ``PinSMSGuard``): PIN SMS
/// and voice calls per number, per app and per client IP address; PIN attempts and new installs per client
/// IP address; new installs per app. Thread-safe; time comes from the caller.
///
/// A PIN send is decided and charged under one lock: every budget (the abuse limits and the guard's prefix
/// velocity, daily cap and conversion window) is charged at once, or none is — so concurrent requests
/// cannot slip past a limit together. Refused: the app's country rule first (no `Retry-After`: waiting
/// does not help), else the longest wait among the spent budgets. In `monitor` mode the guard's findings
/// are returned with the admission instead of refusing it.
/// Not guaranteed: memory bounds beyond the limiters' own (idle keys are purged every 10,000 charges).
final class AbuseLimits: Sendable {
    private struct Limiters {
        var pinPerMSISDN: RateLimiter
        var pinPerApp: RateLimiter
        var pinPerClientIP: RateLimiter
        var verifyPerClientIP: RateLimiter
        var registrationsPerClientIP: RateLimiter
        var registrationsPerApp: RateLimiter
        var pumping: PinSMSGuard
        var checks = 0

        mutating func housekeeping(now: Timestamp) {
            checks += 1
            guard checks % 10_000 == 0 else { return }
            pinPerMSISDN.purge(now: now)
            pinPerApp.purge(now: now)
            pinPerClientIP.purge(now: now)
            verifyPerClientIP.purge(now: now)
            registrationsPerClientIP.purge(now: now)
            registrationsPerApp.purge(now: now)
            pumping.purge(now: now)
        }
    }

    /// The answer to a PIN send.
    enum Admission: Sendable, Hashable {
        /// Send it. `monitored`: what the guard would have refused (the app is in `monitor` mode);
        /// `newBlock`: the prefix block this send started (store, log and report it); `appAlert`: the app's
        /// conversion over all prefixes fell below the threshold (log and report it).
        case admitted(monitored: [PinSMSViolation], newBlock: PrefixBlock?, appAlert: AppConversionAlert?)
        /// An abuse limit is spent.
        case limited(retryAfter: Duration)
        /// The guard refuses it (the app is in `enforce` mode).
        case refused(PinSMSViolation)
    }

    private let limiters: Mutex<Limiters>

    init(_ limits: Configuration.Limits, protection: Configuration.Protection = .init()) {
        func limiter(_ budget: Configuration.Budget) -> RateLimiter { RateLimiter(limit: budget.limit, window: budget.window) }
        limiters = Mutex(Limiters(
            pinPerMSISDN: limiter(limits.pinPerMSISDN), pinPerApp: limiter(limits.pinPerApp),
            pinPerClientIP: limiter(limits.pinPerClientIP), verifyPerClientIP: limiter(limits.verifyPerClientIP),
            registrationsPerClientIP: limiter(limits.registrationsPerClientIP), registrationsPerApp: limiter(limits.registrationsPerApp),
            pumping: PinSMSGuard(settings: protection.guardSettings)))
    }

    /// Decides, and if admitted charges, one PIN send (SMS or voice call) to `msisdn` for `app` asked for from `clientIP`.
    func chargePIN(msisdn: MSISDN, app: App, clientIP: String?, now: Timestamp) -> Admission {
        limiters.withLock { limiters in
            limiters.housekeeping(now: now)
            let ip = clientIP ?? "unknown"
            let request = PinSMSGuard.Request(app: app.key, msisdn: msisdn, protection: app.smsProtection)
            let violations = limiters.pumping.evaluate(request, now: now)
            let enforced = app.smsProtection.mode == .enforce
            if enforced, let country = violations.first(where: { if case .countryDenied = $0 { true } else { false } }) {
                return .refused(country)
            }
            let waits = [limiters.pinPerMSISDN.check(msisdn.e164, now: now), limiters.pinPerApp.check(app.key.text, now: now),
                         limiters.pinPerClientIP.check(ip, now: now)].compactMap { decision -> Duration? in
                if case .limited(let wait) = decision { return wait }
                return nil
            }
            let guardWaits = enforced ? violations.compactMap { violation in violation.retryAfter(now: now).map { (violation, $0) } } : []
            if let (violation, wait) = guardWaits.max(by: { $0.1 < $1.1 }), wait >= (waits.max() ?? .zero) {
                return .refused(violation)
            }
            if let longest = waits.max() { return .limited(retryAfter: longest) }
            _ = limiters.pinPerMSISDN.attempt(msisdn.e164, now: now)
            _ = limiters.pinPerApp.attempt(app.key.text, now: now)
            _ = limiters.pinPerClientIP.attempt(ip, now: now)
            let block = limiters.pumping.recordSent(request, now: now)
            let alert = limiters.pumping.checkAppConversion(app: app.key, now: now)
            return .admitted(monitored: enforced ? [] : violations, newBlock: block, appAlert: alert)
        }
    }

    /// Charges one `VerificationCode` attempt to `clientIP`.
    func chargeVerification(clientIP: String?, now: Timestamp) -> RateLimiter.Decision {
        limiters.withLock { limiters in
            limiters.housekeeping(now: now)
            return limiters.verifyPerClientIP.attempt(clientIP ?? "unknown", now: now)
        }
    }

    /// Charges one new install of `app` from `clientIP` to both budgets, or to neither.
    func chargeRegistration(app: AppKey, clientIP: String?, now: Timestamp) -> RateLimiter.Decision {
        limiters.withLock { limiters in
            limiters.housekeeping(now: now)
            let ip = clientIP ?? "unknown"
            let waits = [limiters.registrationsPerClientIP.check(ip, now: now),
                         limiters.registrationsPerApp.check(app.text, now: now)].compactMap { decision -> Duration? in
                if case .limited(let wait) = decision { return wait }
                return nil
            }
            if let longest = waits.max() { return .limited(retryAfter: longest) }
            _ = limiters.registrationsPerClientIP.attempt(ip, now: now)
            _ = limiters.registrationsPerApp.attempt(app.text, now: now)
            return .allowed
        }
    }

    /// A PIN sent to `msisdn` for `app` was verified (conversion monitoring).
    func recordVerified(app: AppKey, msisdn: MSISDN, now: Timestamp) {
        limiters.withLock { $0.pumping.recordVerified(app: app, msisdn: msisdn, now: now) }
    }

    func restore(_ blocks: [PrefixBlock], now: Timestamp) {
        limiters.withLock { $0.pumping.restore(blocks, now: now) }
    }

    func lift(app: AppKey, prefix: NumberPrefix, now: Timestamp) -> Bool {
        limiters.withLock { $0.pumping.lift(app: app, prefix: prefix, now: now) }
    }

    func activeBlocks(app: AppKey?, now: Timestamp) -> [PrefixBlock] {
        limiters.withLock { $0.pumping.activeBlocks(app: app, now: now) }
    }
}
