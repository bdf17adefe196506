/// A full consistency check of the wheel's internal structure, for tests. O(n); never called by
/// the wheel itself.
extension TimerWheel {
    /// Returns a description of the first broken invariant, or `nil` if the wheel is consistent:
    /// every list entry names a live node that records that list and position; every timer sits
    /// in the list its deadline maps to at the current time and is due strictly later; the hash
    /// probe for its id finds it; occupancy bits match non-empty slots; `listMin` is a lower bound
    /// of each list; every occupied slot starts after now; `count` matches lists and table.
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
                let index = Int(node)
                if index >= tableSize {
                    return "list \(list) entry \(position) is out-of-table node \(node)"
                }
                let deadline = nodes[index].deadline
                if deadline <= elapsed {
                    return "node \(node) deadline \(deadline) is not after now \(elapsed)"
                }
                if nodes[index].list != UInt32(truncatingIfNeeded: list) || nodes[index].position != UInt32(truncatingIfNeeded: position) {
                    return "node \(node) records list \(nodes[index].list) position \(nodes[index].position), is at \(list)/\(position)"
                }
                let expected = Self.listIndex(deadline: deadline, elapsed: elapsed)
                if expected != UInt32(truncatingIfNeeded: list) {
                    return "node \(node) deadline \(deadline) in list \(list), expected \(expected)"
                }
                let (found, isFound) = probe(nodes[index].id)
                if !isFound || found != node {
                    return "probe for id \(nodes[index].id) gives \(found) (\(isFound)), expected \(node)"
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
        var indexed = 0
        for index in 0..<tableSize where nodes[index].deadline != 0 {
            indexed += 1
        }
        if indexed != count {
            return "table holds \(indexed) timers but count is \(count)"
        }
        return nil
    }
}

extension TimerWheel {
    /// The longest distance, in buckets, of any timer from its home bucket: how long the longest
    /// successful probe is. A health check of the index for tests; O(table size).
    func longestProbeDistance() -> Int {
        let size = tableSize
        let nodes = nodes
        var longest = 0
        for bucket in 0..<size where nodes[bucket].deadline != 0 {
            let home = Self.home(nodes[bucket].id, tableSize: size)
            longest = max(longest, (bucket - home + size) % size)
        }
        return longest
    }
}
