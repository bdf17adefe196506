import TandemCore

/// The operations the benchmark drives, so one generic (specialised) loop measures both the
/// wheel and the heap reference. Times are raw ticks, ids raw `UInt64`.
protocol TimerBenchQueue {
    static var benchName: String { get }
    /// An empty queue at `benchNow`; `capacity` > 0 presizes it for that many timers.
    init(benchNow: UInt64, capacity: Int)
    mutating func benchSchedule(_ id: UInt64, at deadline: UInt64)
    mutating func benchCancel(_ id: UInt64) -> Bool
    mutating func benchAdvance(to now: UInt64, _ fire: (UInt64, UInt64) -> Void)
    var benchCount: Int { get }
    var benchNextDeadline: UInt64? { get }
    var benchStorageBytes: Int { get }
}

extension TimerWheel: TimerBenchQueue {
    static var benchName: String {
        "wheel"
    }

    init(benchNow: UInt64, capacity: Int) {
        self.init(now: Tick(benchNow), capacity: capacity)
    }

    mutating func benchSchedule(_ id: UInt64, at deadline: UInt64) {
        schedule(TimerID(id), at: Tick(deadline))
    }

    mutating func benchCancel(_ id: UInt64) -> Bool {
        cancel(TimerID(id))
    }

    mutating func benchAdvance(to now: UInt64, _ fire: (UInt64, UInt64) -> Void) {
        advance(to: Tick(now)) { id, deadline in
            fire(id.rawValue, deadline.rawValue)
        }
    }

    var benchCount: Int {
        count
    }

    var benchNextDeadline: UInt64? {
        nextDeadline?.rawValue
    }

    var benchStorageBytes: Int {
        storageBytes
    }
}

extension TimerBinaryHeap: TimerBenchQueue {
    static var benchName: String {
        "heap"
    }

    init(benchNow: UInt64, capacity: Int) {
        self.init(now: benchNow, capacity: capacity)
    }

    mutating func benchSchedule(_ id: UInt64, at deadline: UInt64) {
        schedule(id, at: deadline)
    }

    mutating func benchCancel(_ id: UInt64) -> Bool {
        cancel(id)
    }

    mutating func benchAdvance(to now: UInt64, _ fire: (UInt64, UInt64) -> Void) {
        advance(to: now, fire)
    }

    var benchCount: Int {
        count
    }

    var benchNextDeadline: UInt64? {
        nextDeadline
    }

    var benchStorageBytes: Int {
        storageBytes
    }
}
