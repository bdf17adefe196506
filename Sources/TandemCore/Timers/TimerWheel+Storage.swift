/// The wheel's heap memory: the timer nodes (a chunked slab), the id index (see
/// `TimerWheel+Index.swift`), the per-slot lists, and per-slot bookkeeping.
extension TimerWheel {
    /// One timer, or a free slab entry (`deadline == 0`; `position` then links the free list).
    /// 24 bytes.
    struct Node: Sendable {
        var id: UInt64
        var deadline: UInt64
        /// The list (slot or overflow) that holds this node.
        var list: UInt32
        /// This node's index within its list; for a free node, the next free node.
        var position: UInt32
    }

    /// A growable array of node indices: the contents of one slot (or of the overflow list).
    /// Unordered: removal moves the last entry into the hole.
    struct ListBuffer {
        var base: UnsafeMutablePointer<UInt32>
        var count: Int
        var capacity: Int

        static let minimumCapacity = 8
        /// Lists at or below this capacity never shrink (no reallocation churn for small slots).
        static let shrinkThreshold = 64

        static func make(capacity: Int = minimumCapacity) -> ListBuffer {
            ListBuffer(base: .allocate(capacity: capacity), count: 0, capacity: capacity)
        }
    }

    /// Every mutable scalar and every pointer that can be replaced (slab chunk table, index
    /// bins, overflow pool). Kept behind a pointer so the hot paths write plain memory (no
    /// dynamic exclusivity checks on class properties).
    struct State {
        /// Chunk table: node `i` lives at `chunks[i >> chunkShift][i & chunkMask]`.
        var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Node>>
        var chunkCount: Int
        var chunkTableCapacity: Int
        /// Nodes the chunks can hold (the first chunk grows ×2 up to `chunkSize`, then whole
        /// chunks are added).
        var nodeCapacity: Int
        /// Nodes ever handed out: indices `0..<highWater` are live or on the free list.
        var highWater: Int
        /// Most recently freed node (LIFO, so a new timer reuses the node a cancel just freed,
        /// which is still in cache), or `noNode`.
        var freeHead: UInt32
        /// Index: `binCount` primary bins of `binWords` words each (see `TimerWheel+Index`).
        var bins: UnsafeMutablePointer<UInt32>
        var binCount: Int
        /// Lemire's fastmod constant for `binCount`: `UInt64.max / binCount + 1`.
        var binMagic: UInt64
        /// Overflow bins for primary bins holding more than `binSlots` entries.
        var pool: UnsafeMutablePointer<UInt32>
        var poolCapacity: Int
        var poolUsed: Int
        var poolFree: UInt32
    }

    static let chunkShift = 12
    static let chunkSize = 1 << chunkShift
    static let chunkMask = UInt32(chunkSize - 1)
    static let firstChunkCapacity = 16
    static let noNode = UInt32.max

    /// Everything the wheel allocates. Manually allocated so the hot paths index raw pointers
    /// (one uniqueness check per mutating call instead of one per element access, no per-access
    /// bounds checks; indices only ever come from the wheel's own index and lists, and
    /// `invariantViolation()` checks them in tests). `TimerWheel` keeps value semantics by
    /// deep-copying the storage before mutating it whenever it is shared (`makeUnique()`), which
    /// is also why `@unchecked Sendable` is sound: a shared storage is never written.
    final class Storage: @unchecked Sendable {
        let state: UnsafeMutablePointer<State>
        let lists: UnsafeMutablePointer<ListBuffer>
        let occupied: UnsafeMutablePointer<UInt64>
        let listMin: UnsafeMutablePointer<UInt64>

        /// An empty wheel's storage with an index of `binCount` bins (a prime) and room for
        /// `chunkTable` chunk pointers.
        init(binCount: Int, chunkTable: Int) {
            let firstChunk = UnsafeMutablePointer<Node>.allocate(capacity: TimerWheel.firstChunkCapacity)
            let table = UnsafeMutablePointer<UnsafeMutablePointer<Node>>.allocate(capacity: max(1, chunkTable))
            table.initialize(to: firstChunk)
            state = .allocate(capacity: 1)
            state.initialize(to: State(
                chunks: table, chunkCount: 1, chunkTableCapacity: max(1, chunkTable),
                nodeCapacity: TimerWheel.firstChunkCapacity, highWater: 0, freeHead: TimerWheel.noNode,
                bins: TimerWheel.allocateBins(binCount), binCount: binCount,
                binMagic: UInt64.max / UInt64(binCount) &+ 1,
                pool: TimerWheel.allocateBins(0), poolCapacity: 0, poolUsed: 0, poolFree: TimerWheel.noNode))
            lists = .allocate(capacity: TimerWheel.listCount)
            occupied = .allocate(capacity: TimerWheel.levelCount)
            occupied.initialize(repeating: 0, count: TimerWheel.levelCount)
            listMin = .allocate(capacity: TimerWheel.listCount)
            listMin.initialize(repeating: UInt64.max, count: TimerWheel.listCount)
            for list in 0..<TimerWheel.listCount {
                (lists + list).initialize(to: ListBuffer.make())
            }
        }

        /// A deep copy: same node indices, same index layout, same lists.
        init(copying other: Storage) {
            let source = other.state.pointee
            let table = UnsafeMutablePointer<UnsafeMutablePointer<Node>>.allocate(capacity: source.chunkTableCapacity)
            for chunk in 0..<source.chunkCount {
                let size = chunk == 0 ? min(source.nodeCapacity, TimerWheel.chunkSize) : TimerWheel.chunkSize
                let copy = UnsafeMutablePointer<Node>.allocate(capacity: size)
                let used = min(size, max(0, source.highWater - chunk * TimerWheel.chunkSize))
                copy.initialize(from: source.chunks[chunk], count: used)
                (table + chunk).initialize(to: copy)
            }
            let bins = TimerWheel.allocateBins(source.binCount)
            bins.update(from: source.bins, count: source.binCount * TimerWheel.binWords)
            let pool = TimerWheel.allocateBins(source.poolCapacity)
            pool.update(from: source.pool, count: source.poolCapacity * TimerWheel.binWords)
            var copied = source
            copied.chunks = table
            copied.bins = bins
            copied.pool = pool
            state = .allocate(capacity: 1)
            state.initialize(to: copied)
            lists = .allocate(capacity: TimerWheel.listCount)
            occupied = .allocate(capacity: TimerWheel.levelCount)
            occupied.initialize(from: other.occupied, count: TimerWheel.levelCount)
            listMin = .allocate(capacity: TimerWheel.listCount)
            listMin.initialize(from: other.listMin, count: TimerWheel.listCount)
            for list in 0..<TimerWheel.listCount {
                let entries = other.lists[list]
                var copy = ListBuffer.make(capacity: entries.capacity)
                copy.base.initialize(from: entries.base, count: entries.count)
                copy.count = entries.count
                (lists + list).initialize(to: copy)
            }
        }

        deinit {
            let current = state.pointee
            for chunk in 0..<current.chunkCount {
                current.chunks[chunk].deallocate()
            }
            current.chunks.deallocate()
            UnsafeMutableRawPointer(current.bins).deallocate()
            UnsafeMutableRawPointer(current.pool).deallocate()
            state.deallocate()
            for list in 0..<TimerWheel.listCount {
                lists[list].base.deallocate()
            }
            lists.deallocate()
            occupied.deallocate()
            listMin.deallocate()
        }

        /// Bytes of the node slab (with its chunk table) and of the index bins.
        var nodeAndIndexBytes: Int {
            let current = state.pointee
            return current.nodeCapacity * MemoryLayout<Node>.stride
                + current.chunkTableCapacity * MemoryLayout<UnsafeMutablePointer<Node>>.stride
                + (current.binCount + current.poolCapacity) * TimerWheel.binBytes
        }

        /// Bytes allocated (excluding allocator and object headers).
        var byteCount: Int {
            var listBytes = 0
            for list in 0..<TimerWheel.listCount {
                listBytes += lists[list].capacity * MemoryLayout<UInt32>.stride
            }
            return nodeAndIndexBytes
                + MemoryLayout<State>.stride
                + listBytes
                + TimerWheel.listCount * (MemoryLayout<ListBuffer>.stride + MemoryLayout<UInt64>.stride)
                + TimerWheel.levelCount * MemoryLayout<UInt64>.stride
        }
    }

    @inline(__always)
    var state: UnsafeMutablePointer<State> {
        storage.state
    }

    /// The node with slab index `index` (< `highWater`).
    @inline(__always)
    func nodeAt(_ index: UInt32) -> UnsafeMutablePointer<Node> {
        storage.state.pointee.chunks[Int(index >> UInt32(Self.chunkShift))] + Int(index & Self.chunkMask)
    }

    /// The 385 lists: 6 × 64 slots, then overflow.
    @inline(__always)
    var lists: UnsafeMutablePointer<ListBuffer> {
        storage.lists
    }

    /// One occupancy bitmask per level: bit `s` set ⇔ slot `s` is non-empty.
    @inline(__always)
    var occupied: UnsafeMutablePointer<UInt64> {
        storage.occupied
    }

    /// Per list: a lower bound on the earliest deadline in it (exact unless that timer was
    /// cancelled or rescheduled); `UInt64.max` when the list is empty.
    @inline(__always)
    var listMin: UnsafeMutablePointer<UInt64> {
        storage.listMin
    }

    /// Copies the storage if this wheel shares it with a copy; call first in every mutation.
    @inline(__always)
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(copying: storage)
        }
    }

    /// A node for a new timer: the most recently freed one, else a fresh slab entry (adding a
    /// chunk when the slab is full — O(chunk) at most, never a copy of existing nodes, except
    /// that the small first chunk doubles up to `chunkSize` nodes).
    @inline(__always)
    mutating func allocateNode() -> UInt32 {
        let state = state
        let free = state.pointee.freeHead
        if free != Self.noNode {
            state.pointee.freeHead = nodeAt(free).pointee.position
            return free
        }
        if state.pointee.highWater == state.pointee.nodeCapacity {
            growSlab()
        }
        let fresh = state.pointee.highWater
        precondition(fresh < Int(Self.noNode), "TimerWheel holds at most 2^32 - 1 timers")
        state.pointee.highWater = fresh + 1
        return UInt32(truncatingIfNeeded: fresh)
    }

    /// Returns an (already unlinked and unindexed) node to the free list.
    @inline(__always)
    mutating func freeNode(_ index: UInt32) {
        let entry = nodeAt(index)
        entry.pointee.deadline = 0
        entry.pointee.position = state.pointee.freeHead
        state.pointee.freeHead = index
    }

    mutating func growSlab() {
        let state = state
        let capacity = state.pointee.nodeCapacity
        if capacity < Self.chunkSize {
            let bigger = min(Self.chunkSize, capacity * 2)
            let fresh = UnsafeMutablePointer<Node>.allocate(capacity: bigger)
            fresh.moveInitialize(from: state.pointee.chunks[0], count: state.pointee.highWater)
            state.pointee.chunks[0].deallocate()
            state.pointee.chunks[0] = fresh
            state.pointee.nodeCapacity = bigger
            return
        }
        let count = state.pointee.chunkCount
        if count == state.pointee.chunkTableCapacity {
            let table = UnsafeMutablePointer<UnsafeMutablePointer<Node>>.allocate(capacity: count * 2)
            table.moveInitialize(from: state.pointee.chunks, count: count)
            state.pointee.chunks.deallocate()
            state.pointee.chunks = table
            state.pointee.chunkTableCapacity = count * 2
        }
        (state.pointee.chunks + count).initialize(to: .allocate(capacity: Self.chunkSize))
        state.pointee.chunkCount = count + 1
        state.pointee.nodeCapacity += Self.chunkSize
    }

    /// Nodes ever handed out by the slab (live + free); for tests.
    var slabHighWater: Int {
        state.pointee.highWater
    }

    /// Bytes held by this wheel: nodes, index, slot lists and per-slot bookkeeping, plus the
    /// struct itself. Not included: allocator and object headers, and memory the allocator has
    /// not yet returned to the system after a growth step.
    public var storageBytes: Int {
        storage.byteCount + MemoryLayout<TimerWheel>.size
    }
}
