/// The id → timer index: the timer nodes themselves form an open-addressing hash table.
///
/// A timer's node index *is* its bucket, so a lookup is one probe that lands directly on the
/// node (one cache miss, not two). Linear probing from `home(id)`; an empty bucket has
/// `deadline == 0` (pending deadlines are always > now ≥ 0). Deletion shifts later cluster
/// members back (no tombstones) and re-points the list entry of every node it moves. Load is
/// kept ≤ 0.65 and the table grows by ×1.5, so it is 0.43…0.65 full (37–55 bytes per timer).
///
/// Not guaranteed: bounded worst-case probe length (expected O(1) for non-adversarial ids);
/// cheap growth — growing rehashes every timer inside one `schedule` call (O(n): measured
/// ~40 ms at 1 M and ~0.8 s at 8 M timers, mostly the kernel zero-filling the new table; pass
/// `capacity:` to `init` to avoid it); shrinking (the table never shrinks).
extension TimerWheel {
    static let hashMultiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
    static let minimumTableSize = 64

    /// Table size keeping `capacity` timers within the 0.65 load limit.
    static func tableSize(forCapacity capacity: Int) -> Int {
        max(minimumTableSize, capacity / 13 * 20 + 20)
    }

    @inline(__always)
    var tableSize: Int {
        storage.tableSize
    }

    /// First bucket to probe for `key`: blocks of 64 consecutive keys stay together, and the blocks are
    /// scattered by a multiplicative hash (multiply-shift range reduction, so the size need not be a
    /// power of two).
    ///
    /// Locality-preserving on purpose: the scheduler's ids are sequential (delivery row id × 4 + kind), so
    /// timers scheduled close together share a block, and an op touches memory it touched recently instead
    /// of a random cache line (see `tandem bench timers`, production pattern). Scattering whole blocks keeps
    /// strided or clustered ids from forming the long linear-probing runs a plain `key % size` builds
    /// (measured: 6 µs/op at 1M with stride-4 ids). Random 64-bit ids spread uniformly (the randomized
    /// tests use them). Not guaranteed: short probes for ids chosen to collide.
    @inline(__always)
    static func home(_ key: UInt64, tableSize: Int) -> Int {
        let blocks = UInt64(tableSize) >> 6
        guard blocks > 1 else {
            let mixed = (key ^ (key >> 32)) &* hashMultiplier
            return Int(truncatingIfNeeded: mixed.multipliedFullWidth(by: UInt64(tableSize)).high)
        }
        let block = ((key >> 6) ^ (key >> 38)) &* hashMultiplier
        let first = block.multipliedFullWidth(by: blocks).high << 6
        return Int(truncatingIfNeeded: first | (key & 63))
    }

    /// The bucket holding `key` and whether it was found; if absent, the empty bucket that ended
    /// the probe (where `key` would be inserted).
    @inline(__always)
    func probe(_ key: UInt64) -> (node: UInt32, found: Bool) {
        let size = tableSize
        let nodes = nodes
        var bucket = Self.home(key, tableSize: size)
        while true {
            if nodes[bucket].deadline == 0 {
                return (UInt32(truncatingIfNeeded: bucket), false)
            }
            if nodes[bucket].id == key {
                return (UInt32(truncatingIfNeeded: bucket), true)
            }
            bucket &+= 1
            if bucket == size {
                bucket = 0
            }
        }
    }

    /// Frees the bucket of an (already unlinked or fired) node, shifting later members of its
    /// cluster back so no probe breaks, and re-pointing the list entry of every node it moves.
    mutating func removeBucket(_ node: UInt32) {
        let size = tableSize
        let nodes = nodes
        var hole = Int(node)
        var cursor = hole
        while true {
            cursor &+= 1
            if cursor == size {
                cursor = 0
            }
            if nodes[cursor].deadline == 0 {
                break
            }
            let home = Self.home(nodes[cursor].id, tableSize: size)
            // The entry may fill the hole unless its home lies cyclically in (hole, cursor].
            let fromHome = cursor >= home ? cursor &- home : cursor &- home &+ size
            let fromHole = cursor >= hole ? cursor &- hole : cursor &- hole &+ size
            if fromHome >= fromHole {
                let moved = nodes[cursor]
                nodes[hole] = moved
                lists[Int(moved.list)].base[Int(moved.position)] = UInt32(truncatingIfNeeded: hole)
                hole = cursor
            }
        }
        nodes[hole].deadline = 0
    }

    /// Grows the table by ×1.5 before an insertion would push it past 0.65 load.
    @inline(__always)
    mutating func growIfNeeded() {
        if (count &+ 1) &* 20 > tableSize &* 13 {
            rehash(tableSize: tableSize + tableSize / 2)
        }
    }

    /// Rebuilds the table at `newSize` buckets. Nodes keep their list and position, so the
    /// lists are copied as they are and then each entry is re-pointed from a sequential pass
    /// over the new table.
    mutating func rehash(tableSize newSize: Int) {
        precondition(newSize <= Int(UInt32.max), "TimerWheel holds at most ~2.7·2^30 timers")
        let old = storage
        let fresh = Storage(copyingListsOf: old, tableSize: newSize)
        for source in 0..<old.tableSize where old.nodes[source].deadline != 0 {
            // Iterating the old table in order visits hashes in nearly ascending order, so the
            // new homes ascend too and these writes are close to sequential.
            var bucket = Self.home(old.nodes[source].id, tableSize: newSize)
            while fresh.nodes[bucket].deadline != 0 {
                bucket += 1
                if bucket == newSize {
                    bucket = 0
                }
            }
            fresh.nodes[bucket] = old.nodes[source]
        }
        for bucket in 0..<newSize where fresh.nodes[bucket].deadline != 0 {
            let node = fresh.nodes[bucket]
            fresh.lists[Int(node.list)].base[Int(node.position)] = UInt32(truncatingIfNeeded: bucket)
        }
        storage = fresh
    }
}
