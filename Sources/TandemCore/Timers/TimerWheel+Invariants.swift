/// A full consistency check of the wheel's internal structure, for tests. O(n); never called by
/// the wheel itself.
extension TimerWheel {
    /// Returns a description of the first broken invariant, or `nil` if the wheel is consistent:
    /// every list entry names a live node that records that list and position; every timer sits
    /// in the list its deadline maps to at the current time and is due strictly later; the index
    /// lookup of its id finds it; occupancy bits match non-empty slots; `listMin` is a lower bound
    /// of each list; every occupied slot starts after now; `count` matches lists, slab and index;
    /// the free list and the index chains are well formed.
    func invariantViolation() -> String? {
        var live = 0
        for list in 0..<Self.listCount {
            let entries = lists[list]
            if entries.count > entries.capacity || entries.capacity < 1 {
                return "list \(list) count \(entries.count) capacity \(entries.capacity)"
            }
            var earliest = UInt64.max
            for position in 0..<entries.count {
                let node = entries.base[position]
                if Int(node) >= state.pointee.highWater {
                    return "list \(list) entry \(position) is out-of-slab node \(node)"
                }
                let entry = nodeAt(node).pointee
                let deadline = entry.deadline
                if deadline <= elapsed {
                    return "node \(node) deadline \(deadline) is not after now \(elapsed)"
                }
                if entry.list != UInt32(truncatingIfNeeded: list) || entry.position != UInt32(truncatingIfNeeded: position) {
                    return "node \(node) records list \(entry.list) position \(entry.position), is at \(list)/\(position)"
                }
                let expected = Self.listIndex(deadline: deadline, elapsed: elapsed)
                if expected != UInt32(truncatingIfNeeded: list) {
                    return "node \(node) deadline \(deadline) in list \(list), expected \(expected)"
                }
                let found = lookup(entry.id).node
                if found != node {
                    return "index lookup for id \(entry.id) gives \(found), expected \(node)"
                }
                earliest = min(earliest, deadline)
            }
            live += entries.count
            if entries.count > 0 && listMin[list] > earliest {
                return "list \(list) min \(listMin[list]) above earliest \(earliest)"
            }
            if list < Int(Self.overflowList) {
                let bit = (occupied[list >> 6] >> UInt64(list & 63)) & 1 == 1
                if bit != (entries.count > 0) {
                    return "list \(list) occupancy bit \(bit) but \(entries.count) entries"
                }
                let start = Self.slotStart(level: list >> 6, slot: list & 63, elapsed: elapsed)
                if entries.count > 0 && start <= elapsed {
                    return "list \(list) starts at \(start), not after now \(elapsed)"
                }
            }
        }
        if live != count {
            return "lists hold \(live) timers but count is \(count)"
        }
        return slabViolation() ?? indexViolation()
    }

    /// Live nodes match `count`; the free list holds exactly the other nodes below `highWater`.
    func slabViolation() -> String? {
        let highWater = state.pointee.highWater
        var liveNodes = 0
        for index in 0..<highWater where nodeAt(UInt32(truncatingIfNeeded: index)).pointee.deadline != 0 {
            liveNodes += 1
        }
        if liveNodes != count {
            return "slab holds \(liveNodes) live nodes but count is \(count)"
        }
        var free = 0
        var cursor = state.pointee.freeHead
        while cursor != Self.noNode {
            if Int(cursor) >= highWater || nodeAt(cursor).pointee.deadline != 0 || free > highWater {
                return "free list broken at node \(cursor)"
            }
            free += 1
            cursor = nodeAt(cursor).pointee.position
        }
        if free + liveNodes != highWater {
            return "\(free) free + \(liveNodes) live nodes, high water \(highWater)"
        }
        return nil
    }

    /// Every index entry names a live node with that fingerprint in that node's home chain;
    /// only a chain's last bin may be partly filled; overflow bins are never empty.
    func indexViolation() -> String? {
        var entries = 0
        for number in 0..<state.pointee.binCount {
            let home = state.pointee.bins + number * Self.binWords
            var bin = home
            var links = 0
            while true {
                let binCount = Int(bin[Self.binCountWord])
                let next = bin[Self.binNextWord]
                if binCount > Self.binSlots || (next != Self.noNode && binCount != Self.binSlots) || (bin != home && binCount == 0) {
                    return "bin \(number) link \(links) holds \(binCount) entries, next \(next)"
                }
                for slot in 0..<binCount {
                    let node = bin[Self.binNodeWord + slot]
                    if Int(node) >= state.pointee.highWater || nodeAt(node).pointee.deadline == 0 {
                        return "bin \(number) names free or out-of-slab node \(node)"
                    }
                    let id = nodeAt(node).pointee.id
                    if homeBin(id) != home || bin[slot] != Self.fingerprint(id) {
                        return "bin \(number) holds id \(id) with a wrong home or fingerprint"
                    }
                }
                entries += binCount
                if next == Self.noNode {
                    break
                }
                links += 1
                if links > state.pointee.poolCapacity {
                    return "bin \(number) chain does not end"
                }
                bin = poolBin(next)
            }
        }
        if entries != count {
            return "index holds \(entries) entries but count is \(count)"
        }
        return nil
    }
}
