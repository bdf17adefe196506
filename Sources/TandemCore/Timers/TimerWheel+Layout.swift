/// Level / slot arithmetic: where a deadline lives relative to `now`, and where a slot starts.
extension TimerWheel {
    static let bitsPerLevel = 6
    static let slotsPerLevel = 64
    static let levelCount = 6
    /// All levels together cover one aligned block of 2^36 ticks.
    static let wheelBits = bitsPerLevel * levelCount
    /// Index of the overflow list (after the 6 × 64 slot lists).
    static let overflowList = UInt32(levelCount * slotsPerLevel)
    /// Number of lists: one per slot plus the overflow list.
    static let listCount = levelCount * slotsPerLevel + 1

    /// Where a deadline is stored; for tests and diagnostics.
    enum Placement: Hashable, Sendable, CustomStringConvertible {
        case slot(level: Int, slot: Int)
        case overflow

        var description: String {
            switch self {
            case let .slot(level, slot): "level \(level) slot \(slot)"
            case .overflow: "overflow"
            }
        }
    }

    /// The list (slot or overflow) that holds a timer with `deadline` when the wheel is at
    /// `elapsed`. Requires `deadline >= elapsed` (equal only while cascading: it then lands in
    /// level 0 at `elapsed`'s own slot and fires in the same `advance`).
    @inline(__always)
    static func listIndex(deadline: UInt64, elapsed: UInt64) -> UInt32 {
        let masked = (elapsed ^ deadline) | UInt64(slotsPerLevel - 1)
        let level = (63 &- masked.leadingZeroBitCount) / bitsPerLevel
        if level >= levelCount {
            return overflowList
        }
        let slot = (deadline >> UInt64(level &* bitsPerLevel)) & UInt64(slotsPerLevel - 1)
        return UInt32(truncatingIfNeeded: level &* slotsPerLevel) &+ UInt32(truncatingIfNeeded: slot)
    }

    static func placement(ofDeadline deadline: Tick, now: Tick) -> Placement {
        let list = listIndex(deadline: deadline.rawValue, elapsed: now.rawValue)
        if list == overflowList {
            return .overflow
        }
        return .slot(level: Int(list) / slotsPerLevel, slot: Int(list) % slotsPerLevel)
    }

    /// First tick covered by `slot` of `level` in the level block that contains `elapsed`.
    @inline(__always)
    static func slotStart(level: Int, slot: Int, elapsed: UInt64) -> UInt64 {
        let shift = UInt64(level &* bitsPerLevel)
        let blockMask = ~((UInt64(1) << (shift &+ UInt64(bitsPerLevel))) &- 1)
        return (elapsed & blockMask) | (UInt64(truncatingIfNeeded: slot) << shift)
    }

    /// First tick of the 2^36-tick block that contains `tick` (overflow granularity).
    @inline(__always)
    static func wheelBlockStart(_ tick: UInt64) -> UInt64 {
        tick & ~((UInt64(1) << UInt64(wheelBits)) &- 1)
    }

    /// Where `id` currently sits, or `nil` if not pending; for tests and diagnostics. O(list).
    func placement(of id: TimerID) -> Placement? {
        guard let node = find(id.rawValue) else {
            return nil
        }
        let list = nodeAt(node).pointee.list
        if list == Self.overflowList {
            return .overflow
        }
        return .slot(level: Int(list) / Self.slotsPerLevel, slot: Int(list) % Self.slotsPerLevel)
    }
}
