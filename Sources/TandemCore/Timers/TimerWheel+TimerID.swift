/// The caller's name for a timer held by ``TimerWheel``: any 64-bit value.
///
/// Ids may be sparse (the scheduler packs e.g. a delivery row id and a timer kind into one
/// `UInt64`); the wheel maps them to its internal node slots with its own hash index, so the
/// caller never has to keep a wheel-issued handle. At most one pending timer exists per id:
/// scheduling an id that is already pending moves it.
///
/// Not guaranteed: ids carry no ordering meaning to the wheel, and the wheel does not check that
/// ids are "well distributed" — any values work, but ids engineered to collide in the hash
/// (adversarial input) would degrade `schedule`/`cancel` towards O(n).
public struct TimerID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String {
        "timer \(rawValue)"
    }
}
