import TandemCore

/// The production access pattern of the Tandem scheduler, as the benchmark replays it.
///
/// * Ids are `deliveryRowID × 4 + kind` with SQLite row ids handed out sequentially (one row
///   per new timer here, so consecutive timers' ids differ by 4).
/// * Background: `N` long-lived timers (kind 2, "SMS validity") with deadlines uniform over
///   0–48 h; each one that fires is replaced by a new one at `now + 48 h` (new row), so the
///   background stays at `N`.
/// * Each operation schedules a new short timer (kind 0, "fallback") at `now + 30 s` and
///   cancels the short timer scheduled `cancelLag` operations earlier (the delivery ack); so
///   `cancelLag` short timers are always in flight and the queue holds `N + cancelLag` timers.
/// * Time advances one 10 ms tick every `operationsPerTick` operations; the queue is advanced
///   to it (firing due background timers, cascading wheel slots) inside the timed loop.
///
/// Not modelled: several timers per delivery, bursts, reschedules, real-clock pacing.
enum TimerProductionPattern {
    static let shortSpan: UInt64 = 3000 // 30 s at 10 ms
    static let longSpan: UInt64 = 17_280_000 // 48 h at 10 ms
    static let cancelLag = 2000
    static let operationsPerTick = 100
    static let backgroundKind: UInt64 = 2
    static let shortKind: UInt64 = 0
    static let firstRow: UInt64 = 1_000_000
}

struct TimerProductionResult {
    /// Whole timed loop (schedule + cancel + the advance every 100 ops) per operation.
    var nanosecondsPerOperation: Double
    /// The advance share of `nanosecondsPerOperation` (advance + re-arming fired timers).
    var advanceNanosecondsPerOperation: Double
    var slowestAdvanceMicroseconds: Double
    /// Background timers fired (and replaced) during the timed operations.
    var fired: Int
    var bytesPerTimer: Double
    var prefillSeconds: Double
    /// Largest single `schedule` during the prefill (an index growth step, if any).
    var slowestPrefillScheduleMs: Double
}

/// Prefills `background` timers, warms up, then times `operations` production-pattern steps.
/// With `presized`, the queue is created with room for every timer it will hold.
func timerMeasureProduction<Queue: TimerBenchQueue>(
    _: Queue.Type, background: Int, operations: Int, presized: Bool
) -> TimerProductionResult {
    typealias Pattern = TimerProductionPattern
    let lag = Pattern.cancelLag
    var rng = TimerBenchRandom(state: 48)
    var nextRow = Pattern.firstRow
    let capacity = background + lag
    var queue = Queue(benchNow: 0, capacity: presized ? capacity : 0)

    let prefill = timerPrefillBackground(&queue, count: background, rng: &rng, nextRow: &nextRow)

    var inFlight = [UInt64](repeating: 0, count: lag)
    var slot = 0
    var filled = false
    var tick: UInt64 = 0
    var untilTick = 0
    var fired = 0
    var advanceNs: UInt64 = 0
    var slowestAdvance: UInt64 = 0

    func run(_ count: Int) {
        for _ in 0..<count {
            if untilTick == 0 {
                untilTick = Pattern.operationsPerTick
                tick += 1
                let before = TimerBenchSystem.monotonicNanoseconds()
                var due = 0
                queue.benchAdvance(to: tick) { _, _ in due += 1 }
                for _ in 0..<due {
                    queue.benchSchedule(nextRow &* 4 &+ Pattern.backgroundKind, at: tick + Pattern.longSpan)
                    nextRow += 1
                }
                fired += due
                let spent = TimerBenchSystem.monotonicNanoseconds() - before
                advanceNs += spent
                slowestAdvance = max(slowestAdvance, spent)
            }
            untilTick -= 1
            if filled {
                let cancelled = queue.benchCancel(inFlight[slot])
                precondition(cancelled, "cancel of an in-flight timer failed")
            }
            let id = nextRow &* 4 &+ Pattern.shortKind
            nextRow += 1
            queue.benchSchedule(id, at: tick + Pattern.shortSpan)
            inFlight[slot] = id
            slot += 1
            if slot == lag {
                slot = 0
                filled = true
            }
        }
    }
    run(lag + min(operations / 10, 200_000)) // fills the in-flight window, then warms up; untimed
    fired = 0
    advanceNs = 0
    slowestAdvance = 0
    // Three equal timed segments; the median damps a preemption or a noisy neighbour.
    var segments: [Double] = []
    for _ in 0..<TimerBenchSystem.segments {
        let start = TimerBenchSystem.monotonicNanoseconds()
        run(operations / TimerBenchSystem.segments)
        segments.append(Double(TimerBenchSystem.monotonicNanoseconds() - start) / Double(operations / TimerBenchSystem.segments))
    }
    precondition(queue.benchCount == capacity, "pending count drifted: \(queue.benchCount)")
    return TimerProductionResult(
        nanosecondsPerOperation: timerMedian(segments),
        advanceNanosecondsPerOperation: Double(advanceNs) / Double(operations / TimerBenchSystem.segments * TimerBenchSystem.segments),
        slowestAdvanceMicroseconds: Double(slowestAdvance) / 1000,
        fired: fired,
        bytesPerTimer: Double(queue.benchStorageBytes) / Double(queue.benchCount),
        prefillSeconds: prefill.seconds,
        slowestPrefillScheduleMs: prefill.slowestMs)
}

/// Schedules `count` background timers (sequential row ids, deadlines uniform over 48 h),
/// timing each call; returns the total time and the slowest single call.
func timerPrefillBackground<Queue: TimerBenchQueue>(
    _ queue: inout Queue, count: Int, rng: inout TimerBenchRandom, nextRow: inout UInt64
) -> (seconds: Double, slowestMs: Double) {
    var slowest: UInt64 = 0
    let start = TimerBenchSystem.monotonicNanoseconds()
    for _ in 0..<count {
        let id = nextRow &* 4 &+ TimerProductionPattern.backgroundKind
        nextRow += 1
        let deadline = 1 + rng.below(TimerProductionPattern.longSpan)
        let before = TimerBenchSystem.monotonicNanoseconds()
        queue.benchSchedule(id, at: deadline)
        slowest = max(slowest, TimerBenchSystem.monotonicNanoseconds() - before)
    }
    let total = TimerBenchSystem.monotonicNanoseconds() - start
    return (Double(total) / 1e9, Double(slowest) / 1e6)
}

/// The production prefill alone into a wheel that is not presized: the largest single
/// `schedule` is the index-growth (rebuild) pause that `init(capacity:)` avoids.
func timerMeasureGrowthPause(timers: Int) -> (seconds: Double, slowestMs: Double, bytesPerTimer: Double) {
    var rng = TimerBenchRandom(state: 48)
    var nextRow = TimerProductionPattern.firstRow
    var wheel = TimerWheel(now: .zero)
    let prefill = timerPrefillBackground(&wheel, count: timers, rng: &rng, nextRow: &nextRow)
    return (prefill.seconds, prefill.slowestMs, Double(wheel.storageBytes) / Double(wheel.count))
}
