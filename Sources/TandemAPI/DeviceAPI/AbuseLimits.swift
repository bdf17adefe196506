import Synchronization
import TandemCore

/// The device API's abuse limits (config `deviceAPI.limits`): PIN SMS and voice calls per number, per app
/// and per client IP address, and PIN attempts per client IP address. Thread-safe; time comes from the
/// caller.
///
/// A PIN send is charged to all three of its budgets at once, or to none: if any of them is spent, the
/// request is refused with the longest `Retry-After` among the spent ones. Not guaranteed: memory bounds
/// beyond the limiters' own (idle keys are purged every 10,000 charges).
final class AbuseLimits: Sendable {
    private struct Limiters {
        var pinPerMSISDN: RateLimiter
        var pinPerApp: RateLimiter
        var pinPerClientIP: RateLimiter
        var verifyPerClientIP: RateLimiter
        var checks = 0

        mutating func housekeeping(now: Timestamp) {
            checks += 1
            guard checks % 10_000 == 0 else { return }
            pinPerMSISDN.purge(now: now)
            pinPerApp.purge(now: now)
            pinPerClientIP.purge(now: now)
            verifyPerClientIP.purge(now: now)
        }
    }

    private let limiters: Mutex<Limiters>

    init(_ limits: Configuration.Limits) {
        limiters = Mutex(Limiters(
            pinPerMSISDN: RateLimiter(limit: limits.pinPerMSISDN.limit, window: limits.pinPerMSISDN.window),
            pinPerApp: RateLimiter(limit: limits.pinPerApp.limit, window: limits.pinPerApp.window),
            pinPerClientIP: RateLimiter(limit: limits.pinPerClientIP.limit, window: limits.pinPerClientIP.window),
            verifyPerClientIP: RateLimiter(limit: limits.verifyPerClientIP.limit, window: limits.verifyPerClientIP.window)))
    }

    /// Charges one PIN send (SMS or voice call) to `msisdn`, `app` and `clientIP`.
    func chargePIN(msisdn: MSISDN, app: AppKey, clientIP: String?, now: Timestamp) -> RateLimiter.Decision {
        limiters.withLock { limiters in
            limiters.housekeeping(now: now)
            let ip = clientIP ?? "unknown"
            let waits = [limiters.pinPerMSISDN.check(msisdn.e164, now: now), limiters.pinPerApp.check(app.text, now: now),
                         limiters.pinPerClientIP.check(ip, now: now)].compactMap { decision -> Duration? in
                if case .limited(let wait) = decision { return wait }
                return nil
            }
            if let longest = waits.max() { return .limited(retryAfter: longest) }
            _ = limiters.pinPerMSISDN.attempt(msisdn.e164, now: now)
            _ = limiters.pinPerApp.attempt(app.text, now: now)
            _ = limiters.pinPerClientIP.attempt(ip, now: now)
            return .allowed
        }
    }

    /// Charges one `VerificationCode` attempt to `clientIP`.
    func chargeVerification(clientIP: String?, now: Timestamp) -> RateLimiter.Decision {
        limiters.withLock { limiters in
            limiters.housekeeping(now: now)
            return limiters.verifyPerClientIP.attempt(clientIP ?? "unknown", now: now)
        }
    }
}
