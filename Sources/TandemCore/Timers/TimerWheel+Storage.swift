/// The wheel's heap memory: the node hash table, the per-slot lists, and per-slot bookkeeping.
extension TimerWheel {
    /// One timer, or an empty hash bucket (`deadline == 0`). 24 bytes.
    struct Node: Sendable {
        var id: UInt64
        var deadline: UInt64
        /// The list (slot or overflow) that holds this node.
        var list: UInt32
        /// This node's index within its list.
        var position: UInt32

        static let empty = Node(id: 0, deadline: 0, list: 0, position: 0)
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

    /// Everything the wheel allocates: `tableSize` hash buckets (the timer nodes), 385 list
    /// buffers (6 × 64 slots + overflow), the per-level occupancy masks and per-list minimums.
    ///
    /// Manually allocated so the hot paths index raw pointers (one uniqueness check per mutating
    /// call instead of one per element access, and no per-access bounds checks; indices only ever
    /// come from the wheel's own hash and lists; `invariantViolation()` checks them in tests).
    /// `TimerWheel` keeps value semantics by copying the storage before mutating it whenever it
    /// is shared (`makeUnique()`), which is also why `@unchecked Sendable` is sound: a shared
    /// storage is never written.
    final class Storage: @unchecked Sendable {
        let nodes: UnsafeMutablePointer<Node>
        let tableSize: Int
        let lists: UnsafeMutablePointer<ListBuffer>
        let occupied: UnsafeMutablePointer<UInt64>
        let listMin: UnsafeMutablePointer<UInt64>

        /// Empty table and lists. With `makeLists: false` the caller must initialize every list.
        init(tableSize: Int, makeLists: Bool = true) {
            self.tableSize = tableSize
            nodes = .allocate(capacity: tableSize)
            nodes.initialize(repeating: Node.empty, count: tableSize)
            lists = .allocate(capacity: TimerWheel.listCount)
            occupied = .allocate(capacity: TimerWheel.levelCount)
            occupied.initialize(repeating: 0, count: TimerWheel.levelCount)
            listMin = .allocate(capacity: TimerWheel.listCount)
            listMin.initialize(repeating: UInt64.max, count: TimerWheel.listCount)
            if makeLists {
                for list in 0..<TimerWheel.listCount {
                    (lists + list).initialize(to: ListBuffer.make())
                }
            }
        }

        /// A deep copy.
        convenience init(copying other: Storage) {
            self.init(copyingListsOf: other, tableSize: other.tableSize)
            nodes.update(from: other.nodes, count: tableSize)
        }

        /// An empty table of `tableSize` buckets with copies of `other`'s lists and bookkeeping
        /// (for a deep copy, or for a rehash that then refills the table).
        convenience init(copyingListsOf other: Storage, tableSize: Int) {
            self.init(tableSize: tableSize, makeLists: false)
            occupied.update(from: other.occupied, count: TimerWheel.levelCount)
            listMin.update(from: other.listMin, count: TimerWheel.listCount)
            for list in 0..<TimerWheel.listCount {
                let source = other.lists[list]
                var copy = ListBuffer.make(capacity: source.capacity)
                copy.base.initialize(from: source.base, count: source.count)
                copy.count = source.count
                (lists + list).initialize(to: copy)
            }
        }

        deinit {
            for list in 0..<TimerWheel.listCount {
                lists[list].base.deallocate()
            }
            lists.deallocate()
            nodes.deallocate()
            occupied.deallocate()
            listMin.deallocate()
        }

        /// Bytes allocated (excluding allocator and object headers).
        var byteCount: Int {
            var listBytes = 0
            for list in 0..<TimerWheel.listCount {
                listBytes += lists[list].capacity * MemoryLayout<UInt32>.stride
            }
            return tableSize * MemoryLayout<Node>.stride
                + listBytes
                + TimerWheel.listCount * (MemoryLayout<ListBuffer>.stride + MemoryLayout<UInt64>.stride)
                + TimerWheel.levelCount * MemoryLayout<UInt64>.stride
        }
    }

    /// The hash table's buckets (timer nodes).
    @inline(__always)
    var nodes: UnsafeMutablePointer<Node> {
        storage.nodes
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

    /// Bytes held by this wheel: the node hash table, the slot lists and per-slot bookkeeping,
    /// plus the struct itself. Not included: allocator and object headers, and memory the
    /// allocator has not yet returned to the system after a growth step.
    public var storageBytes: Int {
        storage.byteCount + MemoryLayout<TimerWheel>.size
    }

    /// Hash buckets (timer nodes) in the table; for tests.
    var tableCapacity: Int {
        storage.tableSize
    }
}
