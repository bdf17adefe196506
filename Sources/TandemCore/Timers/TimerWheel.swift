/// A hierarchical timer wheel: millions of pending timers, O(1) schedule / reschedule / cancel,
/// exact firing (never early; at the deadline's own tick when advanced tick by tick).
///
/// Pure and single-owner: no clocks, no I/O. The shell converts real time to ``Tick``s, passes
/// `now` to ``advance(to:)`` and sleeps until ``nextDeadline``. It is a value type: copying the
/// wheel shares its storage until the next write, which then copies everything (correct but
/// O(n) — the scheduler should own exactly one and never copy it).
///
/// ## Layout
///
/// Six levels of 64 slots (tokio style) plus one overflow list. Level `L` slots are `64^L` ticks
/// wide, so level `L` spans `64^(L+1)` ticks:
///
/// | level | slot width (10 ms tick) | level span            |
/// |-------|-------------------------|-----------------------|
/// | 0     | 1 tick = 10 ms          | 64 ticks = 0.64 s     |
/// | 1     | 64 ticks = 0.64 s       | 4 096 ticks = 40.96 s |
/// | 2     | 4 096 ticks = 40.96 s   | 2^18 ticks ≈ 43.7 min |
/// | 3     | 2^18 ticks ≈ 43.7 min   | 2^24 ticks ≈ 46.6 h   |
/// | 4     | 2^24 ticks ≈ 46.6 h     | 2^30 ticks ≈ 124 days |
/// | 5     | 2^30 ticks ≈ 124 days   | 2^36 ticks ≈ 21.8 y   |
/// | overflow | one unsorted list    | everything beyond     |
///
/// A timer's place is a pure function of (`now`, deadline): the level is given by the highest
/// bit in which `now` and the deadline differ (bits 0–5 → level 0, 6–11 → level 1, …, 36+ →
/// overflow) and the slot by the deadline's 6 bits at that level. Levels are therefore *aligned
/// blocks*, not "delay < span": a timer 100 ticks ahead at `now = 4000` (deadline 4100 crosses
/// the 4096 boundary, bit 12) sits in level 2 and cascades at tick 4096. Every slot that holds
/// anything lies strictly after `now`'s own slot on its level, so the first set bit of a level's
/// 64-bit occupancy mask is that level's next slot, and anything on level `L` is due before
/// anything on level `L+1` (and the overflow list after all levels).
///
/// ## Worked example (tick = 10 ms, `now` = 0)
///
/// * **Due in 30 s** = deadline 3 000. `0 ^ 3000` has its top bit at 11 → level 1, slot
///   `3000 >> 6 = 46`, which starts at tick 2 944 (29.44 s). When `advance(to:)` reaches 2 944
///   the slot is cascaded: relative to `now = 2944` the deadline differs only in bits 0–5, so it
///   moves to level 0, slot `3000 & 63 = 56`, and fires in the call that reaches 3 000 (30.00 s).
/// * **Due in 3 days** = deadline 25 920 000. Top differing bit 24 → level 4, slot 1 (start
///   16 777 216 ≈ 46.6 h). Reaching that tick cascades it to level 3, slot 34 (start 25 690 112
///   ≈ 71.4 h); then to level 2, slot 56 (start 25 919 488, i.e. 8.12 s before the deadline);
///   then to level 1, slot 8, whose start *is* the deadline 25 920 000; cascading that slot puts
///   it in level 0 and it fires in the same `advance` call — at tick 25 920 000, not earlier and
///   not at a coarse slot's edge. The timer was touched 5 times in 3 days; the cost of each step
///   is O(1) per timer moved, and the ticks in between are never visited one by one.
/// * **Overflow**: a deadline in a later 2^36-tick block than `now` (≥ 21.8 years ahead from
///   `now = 0`; as little as one tick when `now` is the last tick of a block). When time reaches
///   the block holding the earliest overflow deadline, the overflow list is scanned and the timers
///   of that block re-enter the levels; the rest stay.
///
/// ## Index and memory
///
/// Ids are sparse 64-bit values, so the wheel hashes them itself (dense caller handles were
/// rejected: the scheduler would then need its own id → handle map, i.e. the same hash table
/// outside the wheel). The timer nodes *are* the buckets of an open-addressing, linear-probing
/// hash table keyed by id: a node is 24 bytes (`id`, `deadline`, its list and its position in
/// that list), a lookup lands on the node itself (one cache miss), and deletion shifts the rest
/// of the cluster back (no tombstones). Each slot list is an unordered array of `UInt32` node
/// indices: removal moves the last entry into the hole (O(1)), and walking a slot reads indices
/// sequentially while its nodes are fetched by independent loads — a linked list would make
/// every cascade a chain of dependent cache misses. No per-timer objects; storage is a few raw
/// buffers owned by one copy-on-write object.
///
/// Bytes per pending timer: table 24 B per bucket at load 0.43–0.65 (grows ×1.5 at 0.65) =
/// 37–55 B, plus 4–8 B of list entries, plus ~12 KB fixed: 41–63 B. Measured: 43 B at 1 M and
/// 49 B at 10 M timers, 61 B at the worst moment (just after a growth step).
/// Not guaranteed: the table never shrinks, so after mass cancellation bytes per *remaining*
/// timer rise; growing rehashes every timer in one call (O(n): ~40 ms at 1 M, ~0.8 s at 8 M —
/// pass `capacity:` to `init` to keep it off the hot path).
///
/// ## Guarantees
///
/// * `advance(to: t)` fires exactly the pending timers whose deadline ≤ `t` — never one with a
///   later deadline, never leaves a due one behind — in non-decreasing deadline order.
/// * `schedule`, `cancel` are O(1) expected (one hash probe + O(1) list update); `advance`
///   costs O(occupied slots visited + timers cascaded or fired), independent of the number of
///   ticks skipped, except that overflow timers are rescanned each time time enters a new
///   2^36-tick block holding one of them.
///
/// Not guaranteed: any order among timers with equal deadlines; thread safety beyond `Sendable`
/// value semantics; that ``nextDeadline`` is exact (see there); a bound on the work or the
/// number of timers of one `advance` call (a cascade moves a whole slot at once: ~1–2 ms for
/// 64 k timers); worst-case (adversarial) hash behaviour.
public struct TimerWheel: Sendable {
    /// Outcome of ``TimerWheel/schedule(_:at:)``.
    public enum ScheduleResult: Sendable, Hashable {
        /// The wheel holds the timer and will return it from `advance` once its deadline passes.
        case scheduled
        /// The deadline is ≤ `now`: the wheel does NOT keep the timer (and drops any earlier
        /// pending timer with this id); the caller fires it at once.
        case alreadyDue
    }

    /// Current wheel time (`now`); only moves forward.
    var elapsed: UInt64
    /// Nodes, lists, occupancy masks and list minimums (copy-on-write; see `Storage`).
    var storage: Storage
    /// Number of pending timers.
    public internal(set) var count: Int = 0

    /// An empty wheel at time `now`. `capacity` presizes the table for that many timers (it
    /// grows past it on demand, which costs an O(n) rehash).
    public init(now: Tick, capacity: Int = 0) {
        elapsed = now.rawValue
        storage = Storage(tableSize: Self.tableSize(forCapacity: max(0, capacity)))
    }

    /// The wheel's current time: the last `now` given to `init` or `advance(to:)`.
    public var now: Tick {
        Tick(elapsed)
    }

    public var isEmpty: Bool {
        count == 0
    }

    /// When the shell should next call `advance(to:)`; `nil` when no timer is pending.
    ///
    /// Guaranteed: `now < nextDeadline <= ` the earliest pending deadline, so sleeping until it
    /// never oversleeps a timer. It is exact (equal to the earliest pending deadline) unless the
    /// timer that was earliest in the relevant slot has since been cancelled or rescheduled; then
    /// it is a stale lower bound — advancing to it fires nothing, re-sorts that slot, and the next
    /// value is again exact. O(levels), no allocation.
    ///
    /// Not guaranteed: that every returned value has a timer due at it (spurious wake-ups after
    /// cancellations are expected; at most one per stale slot).
    public var nextDeadline: Tick? {
        for level in 0..<Self.levelCount {
            let bits = occupied[level]
            if bits != 0 {
                return Tick(listMin[level &* Self.slotsPerLevel &+ bits.trailingZeroBitCount])
            }
        }
        let overflow = Int(Self.overflowList)
        if lists[overflow].count > 0 {
            return Tick(listMin[overflow])
        }
        return nil
    }

    /// The pending deadline of `id`, or `nil` if it is not pending. O(1) expected.
    public func deadline(of id: TimerID) -> Tick? {
        let (node, found) = probe(id.rawValue)
        return found ? Tick(nodes[Int(node)].deadline) : nil
    }

    public func contains(_ id: TimerID) -> Bool {
        probe(id.rawValue).found
    }

    /// Schedules `id` to fire at `deadline`, replacing its pending deadline if it has one.
    ///
    /// Returns `.alreadyDue` when `deadline <= now`: then the wheel does not keep the timer (a
    /// pending one with this id is removed) and the caller must fire it itself. O(1) expected;
    /// amortised, since the table occasionally grows.
    @discardableResult
    public mutating func schedule(_ id: TimerID, at deadline: Tick) -> ScheduleResult {
        let key = id.rawValue
        let when = deadline.rawValue
        makeUnique()
        growIfNeeded()
        let (node, found) = probe(key)
        if found {
            unlink(node)
            if when <= elapsed {
                removeBucket(node)
                count -= 1
                return .alreadyDue
            }
            nodes[Int(node)].deadline = when
            link(node)
            return .scheduled
        }
        if when <= elapsed {
            return .alreadyDue
        }
        nodes[Int(node)].id = key
        nodes[Int(node)].deadline = when
        link(node)
        count += 1
        return .scheduled
    }

    /// Cancels `id`. Returns `false` if it was not pending (never scheduled, already fired,
    /// already cancelled, or returned `.alreadyDue`). O(1) expected.
    @discardableResult
    public mutating func cancel(_ id: TimerID) -> Bool {
        let (node, found) = probe(id.rawValue)
        if !found {
            return false
        }
        makeUnique()
        unlink(node)
        removeBucket(node)
        count -= 1
        return true
    }
}
