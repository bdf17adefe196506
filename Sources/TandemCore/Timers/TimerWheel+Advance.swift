/// Moving time forward: firing due slots and cascading coarse slots down the levels.
extension TimerWheel {
    /// Advances to `now` and returns every timer whose deadline is ≤ `now`, in non-decreasing
    /// deadline order (timers with equal deadlines in unspecified order). The returned timers are no
    /// longer pending. A `now` earlier than or equal to the wheel's time is ignored (time never
    /// moves back) and returns `[]`.
    ///
    /// Cost: O(occupied slots visited + timers cascaded + timers fired); a jump over days of
    /// empty ticks costs a handful of bitmask scans, not one step per tick.
    public mutating func advance(to now: Tick) -> [TimerID] {
        var fired: [TimerID] = []
        advance(to: now, into: &fired)
        return fired
    }

    /// Like ``advance(to:)`` but appends to `fired` (reuse one buffer to avoid allocation).
    public mutating func advance(to now: Tick, into fired: inout [TimerID]) {
        advance(to: now) { id, _ in
            fired.append(id)
        }
    }

    /// Like ``advance(to:)`` but calls `fire(id, deadline)` for each due timer, in the same
    /// order. The timer is already removed when `fire` runs. `fire` must not access this wheel
    /// (it is mid-mutation; Swift's exclusivity checking traps if it does): collect ids and
    /// reschedule afterwards.
    public mutating func advance(to now: Tick, _ fire: (TimerID, Tick) -> Void) {
        let target = now.rawValue
        guard target > elapsed else {
            return
        }
        makeUnique()
        while true {
            if let list = firstOccupiedList() {
                let level = Int(list) >> 6
                let start = Self.slotStart(level: level, slot: Int(list) & 63, elapsed: elapsed)
                if start > target {
                    break
                }
                // Nothing pending is earlier than `start` (lower levels and earlier slots are
                // empty), so jumping there keeps every other timer's placement valid.
                elapsed = start
                if level == 0 {
                    fireList(list, fire)
                } else {
                    cascade(list)
                }
            } else if !enterOverflowBlock(upTo: target) {
                break
            }
        }
        // Every slot left occupied starts after `target`, and `target` is still in the same
        // block as `elapsed` on every level above them, so all placements stay valid.
        elapsed = target
    }

    /// The lowest non-empty level's first occupied slot (the earliest slot overall).
    @inline(__always)
    func firstOccupiedList() -> UInt32? {
        for level in 0..<Self.levelCount {
            let bits = occupied[level]
            if bits != 0 {
                return UInt32(truncatingIfNeeded: level &* Self.slotsPerLevel &+ bits.trailingZeroBitCount)
            }
        }
        return nil
    }

    /// Fires every timer in a level-0 list (all share the deadline `elapsed`): each leaves the
    /// index and returns its node to the free list before `fire` sees it.
    mutating func fireList(_ list: UInt32, _ fire: (TimerID, Tick) -> Void) {
        let slot = Int(list)
        let deadline = Tick(elapsed)
        let entries = lists[slot]
        for position in 0..<entries.count {
            let node = entries.base[position]
            let id = nodeAt(node).pointee.id
            unindex(node, key: id)
            freeNode(node)
            count -= 1
            fire(TimerID(id), deadline)
        }
        clearList(slot)
    }

    /// Re-files every timer of `list` relative to the current `elapsed` (they move to lower
    /// levels, or stay in overflow when `list` is the overflow list).
    ///
    /// Three passes. The first only reads each node's deadline and stores its target list at
    /// the entry's own position: no store in that loop depends on a loaded value's address, so
    /// the CPU overlaps the nodes' cache misses instead of serialising on per-target counters.
    /// The second counts targets (sequential, cached) so each target grows once; the third
    /// appends, with the nodes now in cache.
    mutating func cascade(_ list: UInt32) {
        let taken = takeList(Int(list))
        let targets = UnsafeMutablePointer<UInt32>.allocate(capacity: max(taken.count, 1))
        defer {
            targets.deallocate()
            taken.base.deallocate()
        }
        let now = elapsed
        for position in 0..<taken.count {
            targets[position] = Self.listIndex(deadline: nodeAt(taken.base[position]).pointee.deadline, elapsed: now)
        }
        var perTarget = [Int](repeating: 0, count: Self.listCount)
        perTarget.withUnsafeMutableBufferPointer { counts in
            for position in 0..<taken.count {
                counts[Int(targets[position])] &+= 1
            }
        }
        for target in 0..<Self.listCount where perTarget[target] > 0 {
            reserve(target, extra: perTarget[target])
        }
        for position in 0..<taken.count {
            let node = taken.base[position]
            link(node, deadline: nodeAt(node).pointee.deadline, into: targets[position])
        }
    }

    /// Called when all levels are empty. If the overflow list's earliest deadline lies in a
    /// 2^36-tick block that starts at or before `target`, jumps to that block's start, pulls the
    /// overflow timers of that block into the levels and returns `true`.
    mutating func enterOverflowBlock(upTo target: UInt64) -> Bool {
        let slot = Int(Self.overflowList)
        let overflow = lists[slot]
        if overflow.count == 0 || Self.wheelBlockStart(listMin[slot]) > target {
            return false
        }
        // `listMin` may be stale after cancellations: find the exact earliest deadline.
        var earliest = UInt64.max
        for position in 0..<overflow.count {
            earliest = min(earliest, nodeAt(overflow.base[position]).pointee.deadline)
        }
        listMin[slot] = earliest
        let blockStart = Self.wheelBlockStart(earliest)
        if blockStart > target {
            return false
        }
        elapsed = blockStart
        cascade(Self.overflowList)
        return true
    }
}
