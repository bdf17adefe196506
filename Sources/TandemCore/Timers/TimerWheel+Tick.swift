/// A point in wheel time: an integer count of ticks since an epoch chosen by the shell.
///
/// The tick length (10 ms by default, or finer) is the shell's business: the wheel only
/// compares ticks and does bit arithmetic on them. `Tick` lives beside ``TimerWheel`` because
/// it is the wheel's unit of time.
///
/// Not guaranteed: any relation to wall-clock or monotonic time (the caller converts, and
/// must round deadlines *up* to a whole tick if it never wants a timer to fire early), and
/// no overflow handling beyond ``advanced(by:)`` saturating at `UInt64.max`.
public struct Tick: RawRepresentable, Comparable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static let zero = Tick(0)

    public static func < (lhs: Tick, rhs: Tick) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `self + ticks`, saturating at `UInt64.max` instead of trapping.
    public func advanced(by ticks: UInt64) -> Tick {
        let (sum, overflow) = rawValue.addingReportingOverflow(ticks)
        return Tick(overflow ? UInt64.max : sum)
    }

    public var description: String {
        "tick \(rawValue)"
    }
}
