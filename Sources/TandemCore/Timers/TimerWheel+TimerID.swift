/// The caller's name for a timer held by ``TimerWheel``: any 64-bit value.
///
/// Ids may be sparse (the scheduler packs a delivery row id and a timer kind into one `UInt64`:
/// `row × 4 + kind`); the wheel maps them to its nodes with its own index, so the caller never
/// has to keep a wheel-issued handle. At most one pending timer exists per id: scheduling an id
/// that is already pending moves it.
///
/// Performance, not correctness, depends on the ids' shape: the index keeps consecutive ids in
/// neighbouring cache lines, so sequential or strided ids (the scheduler's) schedule and cancel
/// from cache, while random ids cost about one cache miss per lookup.
///
/// Not guaranteed: ids carry no ordering meaning (firing order is by deadline only), and the
/// wheel does not check that ids are "well distributed" — any values work, but ids engineered to
/// share an index bin (adversarial input: e.g. equal sums of their low and high 32 bits)
/// degrade `schedule`/`cancel` towards O(n).
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
