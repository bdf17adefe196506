/// A point in time as Unix milliseconds: what the core takes as `now` and what deadlines are stored as,
/// so that a restart can rebuild every timer from the database.
public struct Timestamp: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(milliseconds: Int64) { self.rawValue = milliseconds }

    public var milliseconds: Int64 { rawValue }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `self` plus `duration`, rounded *up* to the next whole millisecond (so a deadline is never early).
    public static func + (lhs: Timestamp, rhs: Duration) -> Timestamp {
        let (seconds, attoseconds) = rhs.components
        let millis = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Timestamp(milliseconds: lhs.rawValue + millis)
    }

    /// The span from `other` to `self` (negative when `other` is later).
    public static func - (lhs: Timestamp, rhs: Timestamp) -> Duration {
        .milliseconds(lhs.rawValue - rhs.rawValue)
    }

    public var description: String { "\(rawValue)ms" }
}
