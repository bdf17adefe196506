/// Reference timer queue for the benchmark: an indexed binary min-heap.
///
/// Sparse 64-bit ids map to dense handles through a standard-library `Dictionary`; each handle
/// knows its heap position, so cancel and reschedule remove/re-key in O(log n) without lazy
/// tombstones (a lazy-cancellation heap would make cancel O(1) but grow without bound under the
/// benchmark's churn). Same semantics as `TimerWheel`: deadlines ≤ now are not kept.
struct TimerBinaryHeap {
    struct Entry {
        var deadline: UInt64
        var handle: UInt32
    }

    private(set) var now: UInt64
    private var heap: [Entry] = []
    /// Heap index of each handle.
    private var position: [UInt32] = []
    /// Caller id of each handle.
    private var ids: [UInt64] = []
    private var freeHandles: [UInt32] = []
    private var handles: [UInt64: UInt32] = [:]

    /// An empty heap at `now`; `capacity` reserves room for that many timers up front (the
    /// arrays and the dictionary then do not grow until it is exceeded).
    init(now: UInt64, capacity: Int = 0) {
        self.now = now
        if capacity > 0 {
            heap.reserveCapacity(capacity)
            position.reserveCapacity(capacity)
            ids.reserveCapacity(capacity)
            freeHandles.reserveCapacity(capacity)
            handles.reserveCapacity(capacity)
        }
    }

    var count: Int {
        heap.count
    }

    var nextDeadline: UInt64? {
        heap.first?.deadline
    }

    /// Array capacities × element sizes (dictionary: key + value per capacity slot, plus its
    /// one-bit-per-bucket bitmap); excludes allocator slack.
    var storageBytes: Int {
        heap.capacity * MemoryLayout<Entry>.stride
            + position.capacity * MemoryLayout<UInt32>.stride
            + ids.capacity * MemoryLayout<UInt64>.stride
            + freeHandles.capacity * MemoryLayout<UInt32>.stride
            + handles.capacity * (MemoryLayout<UInt64>.stride + MemoryLayout<UInt32>.stride) * 4 / 3
            + handles.capacity / 6
    }

    /// Returns `false` (and keeps nothing) when `deadline <= now`.
    @discardableResult
    mutating func schedule(_ id: UInt64, at deadline: UInt64) -> Bool {
        if let handle = handles[id] {
            if deadline <= now {
                handles[id] = nil
                remove(handle: handle)
                return false
            }
            let index = Int(position[Int(handle)])
            let old = heap[index].deadline
            heap[index].deadline = deadline
            if deadline < old {
                siftUp(index)
            } else {
                siftDown(index)
            }
            return true
        }
        if deadline <= now {
            return false
        }
        let handle: UInt32
        if let reused = freeHandles.popLast() {
            handle = reused
            ids[Int(handle)] = id
        } else {
            handle = UInt32(ids.count)
            ids.append(id)
            position.append(0)
        }
        handles[id] = handle
        heap.append(Entry(deadline: deadline, handle: handle))
        position[Int(handle)] = UInt32(heap.count - 1)
        siftUp(heap.count - 1)
        return true
    }

    @discardableResult
    mutating func cancel(_ id: UInt64) -> Bool {
        guard let handle = handles.removeValue(forKey: id) else {
            return false
        }
        remove(handle: handle)
        return true
    }

    /// Pops every entry with deadline ≤ `target`, in deadline order.
    mutating func advance(to target: UInt64, _ fire: (UInt64, UInt64) -> Void) {
        guard target > now else {
            return
        }
        now = target
        while let top = heap.first, top.deadline <= target {
            let id = ids[Int(top.handle)]
            handles[id] = nil
            remove(handle: top.handle)
            fire(id, top.deadline)
        }
    }

    private mutating func remove(handle: UInt32) {
        let index = Int(position[Int(handle)])
        freeHandles.append(handle)
        let last = heap.removeLast()
        if index < heap.count {
            heap[index] = last
            position[Int(last.handle)] = UInt32(index)
            siftUp(index)
            siftDown(Int(position[Int(last.handle)]))
        }
    }

    private mutating func siftUp(_ start: Int) {
        let moving = heap[start]
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            if heap[parent].deadline <= moving.deadline {
                break
            }
            heap[index] = heap[parent]
            position[Int(heap[index].handle)] = UInt32(index)
            index = parent
        }
        heap[index] = moving
        position[Int(moving.handle)] = UInt32(index)
    }

    private mutating func siftDown(_ start: Int) {
        let moving = heap[start]
        var index = start
        let count = heap.count
        while true {
            let left = 2 * index + 1
            if left >= count {
                break
            }
            var child = left
            if left + 1 < count && heap[left + 1].deadline < heap[left].deadline {
                child = left + 1
            }
            if moving.deadline <= heap[child].deadline {
                break
            }
            heap[index] = heap[child]
            position[Int(heap[index].handle)] = UInt32(index)
            index = child
        }
        heap[index] = moving
        position[Int(moving.handle)] = UInt32(index)
    }
}
