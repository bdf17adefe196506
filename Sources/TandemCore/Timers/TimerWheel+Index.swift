/// The id → node index: a chained hash of 64-byte bins, keyed so that consecutive ids land in
/// consecutive bins.
///
/// ## Layout
///
/// Nodes live in a slab (see `TimerWheel+Storage`) and never move, so list entries and the
/// index hold stable `UInt32` node numbers. The index is `binCount` primary bins (`binCount`
/// prime) of one cache line each: 7 × (32-bit fingerprint, node number), a count, and the number
/// of an overflow bin from a shared pool when more than 7 ids share the bin. A lookup reads one
/// line, compares fingerprints, and dereferences only a matching node (a miss for an absent id
/// costs no node read). Removal moves the chain's last entry into the hole, so only the last bin
/// of a chain is ever partly filled and empty overflow bins go back to the pool.
///
/// ## The bin function: locality-preserving, not avalanching
///
/// `bin(id) = (low 32 bits of id + high 32 bits of id) mod binCount` (Lemire's fastmod).
/// Identity on the low bits means the scheduler's sequential ids (`row × 4 + kind`) fill
/// consecutive bins: a new timer's bin is the line next to the previous one (prefetched, and
/// in cache when the timer is cancelled a few thousand operations later), and with the LIFO
/// node free list a schedule + cancel pair touches no cold memory. The previous design (timer
/// nodes as open-addressing buckets under a multiplicative hash) took one cache miss per new
/// timer at 10 M pending however sequential the ids were.
///
/// Why chaining rather than open addressing: with identity-like keys, several "wraps" of the
/// id range (ids `binCount` apart) share bins, so the load is uneven by construction — a region
/// can be full while the average is 5/7. Linear probing turns such a region into one long
/// cluster (simulated on this very workload — 48 h background ids plus acked 30 s timers — at
/// 1 M timers: deletions scanned ~4 600 buckets on average, up to 8 000). Chained bins absorb
/// local overload in the overloaded bin only (one extra line), never in its neighbours.
///
/// Trade-offs and what is NOT guaranteed:
/// * Random ids cost the same line per lookup as before, plus a node read on cancel (nodes are
///   not the buckets any more); uniform-random churn is still memory-latency bound.
/// * Ids crafted to share a bin (e.g. all ≡ c mod `binCount`, or equal low+high 32-bit sums)
///   degrade that bin to a linear chain: no worst-case bound, only expected O(1) for ids that are
///   sequential, strided (any stride that is not a multiple of the prime `binCount`), or random.
/// * The index grows (×1.5, rebuilt from the slab inside one `schedule`, O(n)) when the mean
///   bin load would pass 5; it never shrinks, nor does the slab (freed nodes are reused).
///   `init(capacity:)` sizes the index up front; the slab grows by chunks without copying.
extension TimerWheel {
    static let binWords = 16
    static let binBytes = binWords * MemoryLayout<UInt32>.stride
    /// Entries per bin: words 0..<7 are fingerprints, 8..<15 node numbers.
    static let binSlots = 7
    static let binCountWord = 7
    static let binNodeWord = 8
    /// Pool number of the overflow bin, or `noNode`.
    static let binNextWord = 15
    /// The index grows before the mean number of timers per primary bin exceeds this.
    static let maximumMeanBinLoad = 5
    static let minimumBinCount = 13

    /// `count` empty bins, cache-line aligned.
    static func allocateBins(_ count: Int) -> UnsafeMutablePointer<UInt32> {
        let words = max(1, count) * binWords
        let raw = UnsafeMutableRawPointer.allocate(byteCount: words * MemoryLayout<UInt32>.stride, alignment: 64)
        let bins = raw.bindMemory(to: UInt32.self, capacity: words)
        bins.initialize(repeating: 0, count: words)
        for bin in 0..<count {
            bins[bin &* binWords &+ binNextWord] = noNode
        }
        return bins
    }

    /// Primary bins for a wheel expected to hold `capacity` timers.
    static func binCount(forCapacity capacity: Int) -> Int {
        nextPrime(max(minimumBinCount, (capacity + maximumMeanBinLoad - 1) / maximumMeanBinLoad))
    }

    /// The smallest prime ≥ `value` (trial division; called only when the index is sized).
    static func nextPrime(_ value: Int) -> Int {
        var candidate = max(2, value)
        while true {
            var isPrime = candidate == 2 || candidate % 2 == 1
            var divisor = 3
            while isPrime && divisor * divisor <= candidate {
                isPrime = candidate % divisor != 0
                divisor += 2
            }
            if isPrime {
                return candidate
            }
            candidate += 1
        }
    }

    @inline(__always)
    static func fingerprint(_ key: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    /// `(low 32 + high 32 bits of key) mod binCount`, exact for every key (fastmod on 32 bits).
    @inline(__always)
    static func binNumber(_ key: UInt64, magic: UInt64, binCount: Int) -> Int {
        let folded = UInt32(truncatingIfNeeded: key) &+ UInt32(truncatingIfNeeded: key >> 32)
        let fraction = magic &* UInt64(folded)
        return Int(truncatingIfNeeded: fraction.multipliedFullWidth(by: UInt64(binCount)).high)
    }

    /// The primary bin of `key`.
    @inline(__always)
    func homeBin(_ key: UInt64) -> UnsafeMutablePointer<UInt32> {
        let state = state
        let number = Self.binNumber(key, magic: state.pointee.binMagic, binCount: state.pointee.binCount)
        return state.pointee.bins + number &* Self.binWords
    }

    @inline(__always)
    func poolBin(_ number: UInt32) -> UnsafeMutablePointer<UInt32> {
        state.pointee.pool + Int(number) &* Self.binWords
    }

    /// Finds `key`: its node, bin and slot; or, if absent, `node == noNode` and `bin` is the last
    /// bin of its chain (where it would be added).
    @inline(__always)
    func lookup(_ key: UInt64) -> (node: UInt32, bin: UnsafeMutablePointer<UInt32>, slot: Int) {
        var bin = homeBin(key)
        let print = Self.fingerprint(key)
        while true {
            let count = Int(bin[Self.binCountWord])
            var slot = 0
            while slot < count {
                if bin[slot] == print {
                    let candidate = bin[Self.binNodeWord &+ slot]
                    if nodeAt(candidate).pointee.id == key {
                        return (candidate, bin, slot)
                    }
                }
                slot &+= 1
            }
            let next = bin[Self.binNextWord]
            if next == Self.noNode {
                return (Self.noNode, bin, -1)
            }
            bin = poolBin(next)
        }
    }

    /// The node of `key`, if pending.
    @inline(__always)
    func find(_ key: UInt64) -> UInt32? {
        let found = lookup(key).node
        return found == Self.noNode ? nil : found
    }

    /// Adds `node` (whose id is `key`) to the chain whose last bin is `last`.
    @inline(__always)
    mutating func addEntry(_ node: UInt32, key: UInt64, last: UnsafeMutablePointer<UInt32>) {
        var bin = last
        var count = Int(bin[Self.binCountWord])
        if count == Self.binSlots {
            let fresh = allocatePoolBin(keeping: &bin)
            bin[Self.binNextWord] = fresh
            bin = poolBin(fresh)
            count = 0
        }
        bin[count] = Self.fingerprint(key)
        bin[Self.binNodeWord &+ count] = node
        bin[Self.binCountWord] = UInt32(truncatingIfNeeded: count &+ 1)
    }

    /// An empty overflow bin's number. Growing the pool moves it, so `bin` (if it points into
    /// the pool) is re-pointed.
    mutating func allocatePoolBin(keeping bin: inout UnsafeMutablePointer<UInt32>) -> UInt32 {
        let state = state
        var number = state.pointee.poolFree
        if number != Self.noNode {
            state.pointee.poolFree = poolBin(number)[Self.binNextWord]
        } else {
            let capacity = state.pointee.poolCapacity
            if state.pointee.poolUsed == capacity {
                let old = state.pointee.pool
                let bigger = max(8, capacity * 2)
                let fresh = Self.allocateBins(bigger)
                fresh.update(from: old, count: capacity * Self.binWords)
                if bin >= old && bin < old + capacity * Self.binWords {
                    bin = fresh + (bin - old)
                }
                UnsafeMutableRawPointer(old).deallocate()
                state.pointee.pool = fresh
                state.pointee.poolCapacity = bigger
            }
            number = UInt32(truncatingIfNeeded: state.pointee.poolUsed)
            state.pointee.poolUsed += 1
        }
        let fresh = poolBin(number)
        fresh[Self.binCountWord] = 0
        fresh[Self.binNextWord] = Self.noNode
        return number
    }

    /// Removes the entry at `slot` of `bin` (in the chain of `key`): the chain's last entry
    /// fills the hole, and an overflow bin left empty goes back to the pool.
    @inline(__always)
    mutating func removeEntry(bin: UnsafeMutablePointer<UInt32>, slot: Int, key: UInt64) {
        var previous: UnsafeMutablePointer<UInt32>? = nil
        var last = bin
        while last[Self.binNextWord] != Self.noNode {
            previous = last
            last = poolBin(last[Self.binNextWord])
        }
        let lastSlot = Int(last[Self.binCountWord]) &- 1
        if last != bin || lastSlot != slot {
            bin[slot] = last[lastSlot]
            bin[Self.binNodeWord &+ slot] = last[Self.binNodeWord &+ lastSlot]
        }
        last[Self.binCountWord] = UInt32(truncatingIfNeeded: lastSlot)
        if lastSlot == 0 {
            let home = homeBin(key)
            if last != home {
                // An emptied overflow bin: unlink it from its predecessor and free it.
                var before = previous ?? home
                while before[Self.binNextWord] != Self.noNode && poolBin(before[Self.binNextWord]) != last {
                    before = poolBin(before[Self.binNextWord])
                }
                let number = before[Self.binNextWord]
                before[Self.binNextWord] = Self.noNode
                last[Self.binNextWord] = state.pointee.poolFree
                state.pointee.poolFree = number
            }
        }
    }

    /// Removes the index entry of `node`, whose id is `key` (no node reads: matches the number).
    mutating func unindex(_ node: UInt32, key: UInt64) {
        var bin = homeBin(key)
        while true {
            let count = Int(bin[Self.binCountWord])
            for slot in 0..<count where bin[Self.binNodeWord &+ slot] == node {
                removeEntry(bin: bin, slot: slot, key: key)
                return
            }
            let next = bin[Self.binNextWord]
            precondition(next != Self.noNode, "TimerWheel index lost node \(node)")
            bin = poolBin(next)
        }
    }

    /// The last bin of `key`'s chain.
    func chainTail(_ key: UInt64) -> UnsafeMutablePointer<UInt32> {
        var bin = homeBin(key)
        while bin[Self.binNextWord] != Self.noNode {
            bin = poolBin(bin[Self.binNextWord])
        }
        return bin
    }

    /// Grows the index ×1.5 before an insertion would push the mean bin load past the limit.
    @inline(__always)
    mutating func growIndexIfNeeded() {
        if count >= Self.maximumMeanBinLoad &* state.pointee.binCount {
            rebuildIndex(binCount: Self.nextPrime(state.pointee.binCount + state.pointee.binCount / 2))
        }
    }

    /// Rebuilds the index with `newCount` primary bins from a sequential pass over the slab
    /// (nodes, lists and node numbers are untouched).
    mutating func rebuildIndex(binCount newCount: Int) {
        precondition(newCount < Int(UInt32.max), "TimerWheel index too large")
        let state = state
        UnsafeMutableRawPointer(state.pointee.bins).deallocate()
        UnsafeMutableRawPointer(state.pointee.pool).deallocate()
        state.pointee.bins = Self.allocateBins(newCount)
        state.pointee.binCount = newCount
        state.pointee.binMagic = UInt64.max / UInt64(newCount) &+ 1
        state.pointee.pool = Self.allocateBins(0)
        state.pointee.poolCapacity = 0
        state.pointee.poolUsed = 0
        state.pointee.poolFree = Self.noNode
        for index in 0..<state.pointee.highWater {
            let entry = nodeAt(UInt32(truncatingIfNeeded: index))
            if entry.pointee.deadline != 0 {
                let key = entry.pointee.id
                addEntry(UInt32(truncatingIfNeeded: index), key: key, last: chainTail(key))
            }
        }
    }

    /// Timers the index holds before it next grows; for tests.
    var indexCapacity: Int {
        state.pointee.binCount * Self.maximumMeanBinLoad
    }

    /// Shape of the id index, for benchmarks and diagnostics. Not guaranteed: that the fields
    /// keep their meaning across versions (they describe the current bin layout).
    public struct IndexStatistics: Sendable {
        /// Primary bins (64 bytes each).
        public var bins: Int
        /// Overflow bins in use.
        public var overflowBins: Int
        /// Mean, over pending timers, of the bins (cache lines) a lookup of that timer reads.
        public var meanProbe: Double
        /// The most bins any pending timer's lookup reads.
        public var maxProbe: Int
        /// The most timers sharing one primary bin.
        public var longestChain: Int
    }

    /// Walks every bin: O(bins + overflow bins), no allocation, no node reads.
    public func indexStatistics() -> IndexStatistics {
        var statistics = IndexStatistics(bins: state.pointee.binCount, overflowBins: 0, meanProbe: 0, maxProbe: 0, longestChain: 0)
        var probes = 0
        for number in 0..<state.pointee.binCount {
            var bin = state.pointee.bins + number * Self.binWords
            var depth = 1
            var chain = 0
            while true {
                let binCount = Int(bin[Self.binCountWord])
                chain += binCount
                probes += binCount * depth
                if binCount > 0 {
                    statistics.maxProbe = max(statistics.maxProbe, depth)
                }
                let next = bin[Self.binNextWord]
                if next == Self.noNode {
                    break
                }
                statistics.overflowBins += 1
                depth += 1
                bin = poolBin(next)
            }
            statistics.longestChain = max(statistics.longestChain, chain)
        }
        statistics.meanProbe = count == 0 ? 0 : Double(probes) / Double(count)
        return statistics
    }
}
