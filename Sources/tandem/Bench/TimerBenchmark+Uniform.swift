import TandemCore

/// One churn step: schedule `id` at `deadline`, then cancel the pending timer `victim`.
struct TimerChurnOperation {
    var id: UInt64
    var deadline: UInt64
    var victim: UInt64
}

/// Pre-fills `pending` timers, then times `operations` × (schedule new + cancel random pending).
func timerMeasureUniformChurn<Queue: TimerBenchQueue>(
    _: Queue.Type, pending: Int, operations: Int, seed: UInt64, horizon: UInt64
) -> TimerChurnResult {
    var rng = TimerBenchRandom(state: seed)
    var live = [UInt64](repeating: 0, count: pending)
    var counter: UInt64 = 0
    let residentBefore = TimerBenchSystem.residentBytes()
    var queue = Queue(benchNow: 0, capacity: 0)
    let prefillStart = TimerBenchSystem.monotonicNanoseconds()
    var slowestSchedule: UInt64 = 0
    for index in 0..<pending {
        counter &+= 1
        let id = TimerBenchRandom.mix(counter)
        let before = TimerBenchSystem.monotonicNanoseconds()
        queue.benchSchedule(id, at: 1 + rng.below(horizon))
        slowestSchedule = max(slowestSchedule, TimerBenchSystem.monotonicNanoseconds() - before)
        live[index] = id
    }
    let prefillNs = TimerBenchSystem.monotonicNanoseconds() - prefillStart
    let residentAfter = TimerBenchSystem.residentBytes()
    let estimated = queue.benchStorageBytes

    // The operation stream is generated up front (untimed) and read sequentially, the way the
    // scheduler gets ids from the message it is handling: the timed loop measures the queue, not
    // a random lookup into the benchmark's own id array.
    func makeChurnOperations(_ count: Int) -> [TimerChurnOperation] {
        var operations: [TimerChurnOperation] = []
        operations.reserveCapacity(count)
        for _ in 0..<count {
            counter &+= 1
            let id = TimerBenchRandom.mix(counter)
            let deadline = 1 + rng.below(horizon)
            let slot = Int(rng.below(UInt64(pending)))
            operations.append(TimerChurnOperation(id: id, deadline: deadline, victim: live[slot]))
            live[slot] = id
        }
        return operations
    }
    func run(_ operations: ArraySlice<TimerChurnOperation>) {
        for operation in operations {
            let cancelled = queue.benchCancel(operation.victim)
            precondition(cancelled, "cancel of a pending timer failed")
            queue.benchSchedule(operation.id, at: operation.deadline)
        }
    }
    run(makeChurnOperations(min(operations / 10, 200_000))[...]) // warm-up, untimed
    let timed = makeChurnOperations(operations)
    // Three equal timed segments; the median damps a preemption or a noisy neighbour.
    var segments: [Double] = []
    let segment = timed.count / TimerBenchSystem.segments
    for index in 0..<TimerBenchSystem.segments {
        let start = TimerBenchSystem.monotonicNanoseconds()
        run(timed[index * segment..<(index + 1) * segment])
        segments.append(Double(TimerBenchSystem.monotonicNanoseconds() - start) / Double(segment))
    }
    precondition(queue.benchCount == pending, "pending count drifted")
    return TimerChurnResult(
        nanosecondsPerOperation: timerMedian(segments),
        estimatedBytesPerTimer: Double(estimated) / Double(pending),
        residentBytesPerTimer: Double(max(0, residentAfter - residentBefore)) / Double(pending),
        prefillSeconds: Double(prefillNs) / 1e9,
        slowestScheduleMs: Double(slowestSchedule) / 1e6)
}

/// The churn loop's own cost (reading the pre-generated operation stream) with no queue.
func timerMeasureHarness(operations: Int) -> Double {
    var stream: [(UInt64, UInt64, UInt64)] = []
    stream.reserveCapacity(operations)
    var rng = TimerBenchRandom(state: 11)
    for _ in 0..<operations {
        stream.append((rng.next(), rng.below(360_000), rng.next()))
    }
    var sink: UInt64 = 0
    let start = TimerBenchSystem.monotonicNanoseconds()
    for (id, deadline, victim) in stream {
        sink = sink &+ (id ^ deadline ^ victim) &* 31
    }
    let elapsed = TimerBenchSystem.monotonicNanoseconds() - start
    precondition(sink != 1)
    return Double(elapsed) / Double(operations)
}

struct TimerChurnResult {
    var nanosecondsPerOperation: Double
    var estimatedBytesPerTimer: Double
    var residentBytesPerTimer: Double
    var prefillSeconds: Double
    var slowestScheduleMs: Double
}
