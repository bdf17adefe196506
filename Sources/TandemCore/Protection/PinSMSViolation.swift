/// What a PIN message would violate.
public enum PinSMSViolation: Sendable, Hashable {
    /// The app's country rule does not allow the number's region.
    case countryDenied(RegionCode)
    /// The number's prefix is blocked for the app (conversion fell below the threshold) until then.
    case prefixBlocked(until: Timestamp)
    /// Too many PIN messages to the prefix for the app.
    case prefixVelocity(retryAfter: Duration)
    /// Too many PIN messages to the number today.
    case dailyCap(retryAfter: Duration)

    /// The `reason` label of `tandem_pin_sms_blocked_total`.
    public var reason: String {
        switch self {
        case .countryDenied: "country"
        case .prefixBlocked: "prefix_blocked"
        case .prefixVelocity: "prefix_velocity"
        case .dailyCap: "daily_cap"
        }
    }

    /// How long until the same request could pass; nil for a country rule (it will not pass).
    public func retryAfter(now: Timestamp) -> Duration? {
        switch self {
        case .countryDenied: nil
        case .prefixBlocked(let until): until - now
        case .prefixVelocity(let wait), .dailyCap(let wait): wait
        }
    }
}
