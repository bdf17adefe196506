/// Slot lists: each slot (and the overflow list) is an unordered array of node indices, so
/// walking a slot reads indices sequentially and touches its nodes with independent loads (a
/// linked list would be a chain of dependent cache misses). A node records its list and
/// position, so removal is O(1): the list's last entry moves into the hole.
extension TimerWheel {
    /// Appends `node` to the list its deadline belongs to at the current `elapsed`.
    @inline(__always)
    mutating func link(_ node: UInt32) {
        let when = nodeAt(node).pointee.deadline
        link(node, deadline: when, into: Self.listIndex(deadline: when, elapsed: elapsed))
    }

    /// Appends `node`, whose deadline is `when`, to `list`.
    @inline(__always)
    mutating func link(_ node: UInt32, deadline when: UInt64, into list: UInt32) {
        let slot = Int(list)
        let position = lists[slot].count
        if position == lists[slot].capacity {
            resizeList(slot, capacity: position + position / 2)
        }
        lists[slot].base[position] = node
        lists[slot].count = position &+ 1
        nodeAt(node).pointee.list = list
        nodeAt(node).pointee.position = UInt32(truncatingIfNeeded: position)
        if list != Self.overflowList {
            occupied[slot >> 6] |= UInt64(1) << UInt64(slot & 63)
        }
        if when < listMin[slot] {
            listMin[slot] = when
        }
    }

    /// Removes `node` from its list; clears the slot's bit if the list becomes empty and gives
    /// memory back when the list is less than half full.
    @inline(__always)
    mutating func unlink(_ node: UInt32) {
        let entry = nodeAt(node)
        let slot = Int(entry.pointee.list)
        let position = Int(entry.pointee.position)
        let last = lists[slot].count &- 1
        if position != last {
            let moved = lists[slot].base[last]
            lists[slot].base[position] = moved
            nodeAt(moved).pointee.position = UInt32(truncatingIfNeeded: position)
        }
        lists[slot].count = last
        let capacity = lists[slot].capacity
        if last == 0 {
            markEmpty(slot)
            if capacity > ListBuffer.shrinkThreshold {
                resizeList(slot, capacity: ListBuffer.minimumCapacity)
            }
        } else if last < capacity / 2 && capacity > ListBuffer.shrinkThreshold {
            resizeList(slot, capacity: capacity * 2 / 3)
        }
    }

    @inline(__always)
    mutating func markEmpty(_ slot: Int) {
        if slot != Int(Self.overflowList) {
            occupied[slot >> 6] &= ~(UInt64(1) << UInt64(slot & 63))
        }
        listMin[slot] = UInt64.max
    }

    /// Moves a list to a buffer of `capacity` (≥ its count) entries.
    mutating func resizeList(_ slot: Int, capacity: Int) {
        let old = lists[slot]
        let fresh = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        fresh.moveInitialize(from: old.base, count: old.count)
        old.base.deallocate()
        lists[slot] = ListBuffer(base: fresh, count: old.count, capacity: capacity)
    }

    /// Empties a list, handing its buffer to the caller (who must deallocate `base`); the list
    /// gets a fresh small buffer.
    mutating func takeList(_ slot: Int) -> ListBuffer {
        let taken = lists[slot]
        lists[slot] = ListBuffer.make()
        markEmpty(slot)
        return taken
    }

    /// Makes room for `extra` more entries in a list at once.
    mutating func reserve(_ slot: Int, extra: Int) {
        let needed = lists[slot].count + extra
        if needed > lists[slot].capacity {
            resizeList(slot, capacity: max(needed, lists[slot].capacity + lists[slot].capacity / 2))
        }
    }

    /// Empties a list whose nodes have already been freed.
    mutating func clearList(_ slot: Int) {
        if lists[slot].capacity > 8 * ListBuffer.minimumCapacity {
            lists[slot].base.deallocate()
            lists[slot] = ListBuffer.make()
        } else {
            lists[slot].count = 0
        }
        markEmpty(slot)
    }
}
