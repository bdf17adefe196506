import TandemCore

/// One churn step: schedule `id` at `deadline`, then cancel the pending timer `victim`.
struct ChurnOperation {
    var id: UInt64
    var deadline: UInt64
    var victim: UInt64
}

/// Pre-fills `pending` timers, then times `operations` × (schedule new + cancel random pending).
func measureChurn<Queue: BenchTimerQueue>(
    _: Queue.Type, pending: Int, operations: Int, seed: UInt64, horizon: UInt64
) -> ChurnResult {
    var rng = BenchRandom(state: seed)
    var live = [UInt64](repeating: 0, count: pending)
    var counter: UInt64 = 0
    let residentBefore = BenchSystem.residentBytes()
    var queue = Queue(benchNow: 0)
    let prefillStart = BenchSystem.monotonicNanoseconds()
    var slowestSchedule: UInt64 = 0
    for index in 0..<pending {
        counter &+= 1
        let id = BenchRandom.mix(counter)
        let before = BenchSystem.monotonicNanoseconds()
        queue.benchSchedule(id, at: 1 + rng.below(horizon))
        slowestSchedule = max(slowestSchedule, BenchSystem.monotonicNanoseconds() - before)
        live[index] = id
    }
    let prefillNs = BenchSystem.monotonicNanoseconds() - prefillStart
    let residentAfter = BenchSystem.residentBytes()
    let estimated = queue.benchStorageBytes

    // The operation stream is generated up front (untimed) and read sequentially, the way the
    // scheduler gets ids from the message it is handling: the timed loop measures the queue, not
    // a random lookup into the benchmark's own id array.
    func makeChurnOperations(_ count: Int) -> [ChurnOperation] {
        var operations: [ChurnOperation] = []
        operations.reserveCapacity(count)
        for _ in 0..<count {
            counter &+= 1
            let id = BenchRandom.mix(counter)
            let deadline = 1 + rng.below(horizon)
            let slot = Int(rng.below(UInt64(pending)))
            operations.append(ChurnOperation(id: id, deadline: deadline, victim: live[slot]))
            live[slot] = id
        }
        return operations
    }
    func run(_ operations: [ChurnOperation]) {
        for operation in operations {
            let cancelled = queue.benchCancel(operation.victim)
            precondition(cancelled, "cancel of a pending timer failed")
            queue.benchSchedule(operation.id, at: operation.deadline)
        }
    }
    run(makeChurnOperations(min(operations / 10, 200_000))) // warm-up, untimed
    let timed = makeChurnOperations(operations)
    let start = BenchSystem.monotonicNanoseconds()
    run(timed)
    let elapsed = BenchSystem.monotonicNanoseconds() - start
    precondition(queue.benchCount == pending, "pending count drifted")
    return ChurnResult(
        nanosecondsPerOperation: Double(elapsed) / Double(operations),
        estimatedBytesPerTimer: Double(estimated) / Double(pending),
        residentBytesPerTimer: Double(max(0, residentAfter - residentBefore)) / Double(pending),
        prefillSeconds: Double(prefillNs) / 1e9,
        slowestScheduleMs: Double(slowestSchedule) / 1e6)
}

/// The churn loop's own cost (reading the pre-generated operation stream) with no queue.
func measureHarness(operations: Int) -> Double {
    var stream: [(UInt64, UInt64, UInt64)] = []
    stream.reserveCapacity(operations)
    var rng = BenchRandom(state: 11)
    for _ in 0..<operations {
        stream.append((rng.next(), rng.below(360_000), rng.next()))
    }
    var sink: UInt64 = 0
    let start = BenchSystem.monotonicNanoseconds()
    for (id, deadline, victim) in stream {
        sink = sink &+ (id ^ deadline ^ victim) &* 31
    }
    let elapsed = BenchSystem.monotonicNanoseconds() - start
    precondition(sink != 1)
    return Double(elapsed) / Double(operations)
}

/// ns per fired timer when `timers` timers spread over `horizon` ticks all fire in one advance.
func measureDrain<Queue: BenchTimerQueue>(_: Queue.Type, timers: Int, horizon: UInt64) -> Double {
    var rng = BenchRandom(state: 99)
    var queue = Queue(benchNow: 0)
    for index in 0..<timers {
        queue.benchSchedule(BenchRandom.mix(UInt64(index) + 1), at: 1 + rng.below(horizon))
    }
    var fired = 0
    var previous: UInt64 = 0
    var ordered = true
    let start = BenchSystem.monotonicNanoseconds()
    queue.benchAdvance(to: horizon) { _, deadline in
        fired += 1
        ordered = ordered && deadline >= previous
        previous = deadline
    }
    let elapsed = BenchSystem.monotonicNanoseconds() - start
    precondition(fired == timers && ordered, "drain fired \(fired) of \(timers), ordered \(ordered)")
    return Double(elapsed) / Double(timers)
}

/// Time for one wheel advance over a 30-day idle gap while `timers` timers wait 60–400 days out.
func measureIdleGap(timers: Int) -> (microseconds: Double, fired: Int) {
    let day: UInt64 = 8_640_000
    var rng = BenchRandom(state: 5)
    var wheel = TimerWheel(now: .zero)
    for index in 0..<timers {
        wheel.schedule(TimerID(UInt64(index)), at: Tick(60 * day + rng.below(340 * day)))
    }
    var fired = 0
    let start = BenchSystem.monotonicNanoseconds()
    wheel.advance(to: Tick(30 * day)) { _, _ in fired += 1 }
    let elapsed = BenchSystem.monotonicNanoseconds() - start
    return (Double(elapsed) / 1000, fired)
}

struct LatenessResult {
    var name: String
    var tickP50Ms: Double
    var tickP99Ms: Double
    var tickMaxMs: Double
    var exactP50Ms: Double
    var exactP99Ms: Double
    var exactMaxMs: Double
    var minMs: Double
    var wakeups: Int
    var slowestAdvanceMs: Double
    var fired: Int
    var neverEarly: Bool
}

/// Real-clock run: `timers` timers with uniform real deadlines over `seconds`, rounded up to
/// whole ticks; the loop sleeps until the next deadline (at most one tick), advances to the
/// current tick, and records fire time − deadline per timer.
func measureLateness<Queue: BenchTimerQueue>(
    _: Queue.Type, timers: Int, seconds: UInt64, tickNs: UInt64
) -> LatenessResult {
    var rng = BenchRandom(state: 31)
    let spanNs = seconds * 1_000_000_000
    var exactOffset = [UInt64](repeating: 0, count: timers)
    var queue = Queue(benchNow: 0)
    for index in 0..<timers {
        let offset = tickNs + rng.below(spanNs)
        exactOffset[index] = offset
        queue.benchSchedule(UInt64(index), at: (offset + tickNs - 1) / tickNs) // round up: never early
    }
    var vsTick: [Int64] = []
    var vsExact: [Int64] = []
    vsTick.reserveCapacity(timers)
    vsExact.reserveCapacity(timers)
    var wakeups = 0
    var slowestAdvance: UInt64 = 0
    let epoch = BenchSystem.monotonicNanoseconds()
    while queue.benchCount > 0 {
        let woke = BenchSystem.monotonicNanoseconds()
        let tick = (woke - epoch) / tickNs
        queue.benchAdvance(to: tick) { id, deadline in
            let firedAt = Int64(BenchSystem.monotonicNanoseconds() - epoch)
            vsTick.append(firedAt - Int64(deadline * tickNs))
            vsExact.append(firedAt - Int64(exactOffset[Int(id)]))
        }
        let now = BenchSystem.monotonicNanoseconds()
        slowestAdvance = max(slowestAdvance, now - woke)
        guard let next = queue.benchNextDeadline else {
            break
        }
        BenchSystem.sleep(untilMonotonicNanoseconds: min(epoch + next * tickNs, now + tickNs))
        wakeups += 1
    }
    vsTick.sort()
    vsExact.sort()
    func ms(_ value: Int64?) -> Double {
        Double(value ?? 0) / 1e6
    }
    let earliest = min(vsTick.first ?? 0, vsExact.first ?? 0)
    return LatenessResult(
        name: Queue.benchName,
        tickP50Ms: ms(percentile(vsTick, 0.5)), tickP99Ms: ms(percentile(vsTick, 0.99)), tickMaxMs: ms(vsTick.last),
        exactP50Ms: ms(percentile(vsExact, 0.5)), exactP99Ms: ms(percentile(vsExact, 0.99)), exactMaxMs: ms(vsExact.last),
        minMs: ms(earliest), wakeups: wakeups, slowestAdvanceMs: Double(slowestAdvance) / 1e6,
        fired: vsTick.count, neverEarly: earliest >= 0)
}
