/// A tiny deterministic generator (Steele, Lea and Flood's SplitMix64) for the simulators' draws: the same
/// seed gives the same sequence on every machine. Not for secrets; not shared between simulators (each owns
/// one, so one simulator's draws never shift another's).
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A value in `0..<1` from the top 53 bits (every value a `Double` can hold exactly, evenly spaced).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
