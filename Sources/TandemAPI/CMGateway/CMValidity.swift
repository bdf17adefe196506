import TandemCore

/// CM's `validity`: until when the message may still be delivered.
///
/// - `absolute`: a point in time, from ISO 8601 text with an explicit zone.
/// - `relative`: a span from acceptance (`30m`, `2h`, `1h30m`, `2d`); the codec has no clock, so the caller
///   resolves it with its own `now` (`expiry(acceptedAt:)`).
///
/// Not checked: that an absolute validity lies in the future, or any upper bound; those are policy.
public enum CMValidity: Sendable, Hashable {
    case absolute(Timestamp)
    case relative(Duration)

    /// The deadline for a message accepted at `now` (a relative span is rounded up to whole milliseconds).
    public func expiry(acceptedAt now: Timestamp) -> Timestamp {
        switch self {
        case .absolute(let timestamp): timestamp
        case .relative(let duration): now + duration
        }
    }
}
