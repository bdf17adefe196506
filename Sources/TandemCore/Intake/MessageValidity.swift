/// Until when a message may still be delivered, as a sender API gave it.
///
/// - `absolute`: a point in time.
/// - `relative`: a span from acceptance; the codec that decoded it has no clock, so the intake resolves it
///   with its own `now` (`expiry(acceptedAt:)`).
///
/// Not checked here: that an absolute validity lies in the future (``MessageIntake`` rejects one that has
/// passed), or any upper bound; those are policy.
public enum MessageValidity: Sendable, Hashable {
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
