import TandemCore

/// ns per fired timer when `timers` timers spread over `horizon` ticks all fire in one advance.
func timerMeasureDrain<Queue: TimerBenchQueue>(_: Queue.Type, timers: Int, horizon: UInt64) -> Double {
    var rng = TimerBenchRandom(state: 99)
    var queue = Queue(benchNow: 0, capacity: 0)
    for index in 0..<timers {
        queue.benchSchedule(TimerBenchRandom.mix(UInt64(index) + 1), at: 1 + rng.below(horizon))
    }
    var fired = 0
    var previous: UInt64 = 0
    var ordered = true
    let start = TimerBenchSystem.monotonicNanoseconds()
    queue.benchAdvance(to: horizon) { _, deadline in
        fired += 1
        ordered = ordered && deadline >= previous
        previous = deadline
    }
    let elapsed = TimerBenchSystem.monotonicNanoseconds() - start
    precondition(fired == timers && ordered, "drain fired \(fired) of \(timers), ordered \(ordered)")
    return Double(elapsed) / Double(timers)
}

/// Time for one wheel advance over a 30-day idle gap while `timers` timers wait 60–400 days out.
func timerMeasureIdleGap(timers: Int) -> (microseconds: Double, fired: Int) {
    let day: UInt64 = 8_640_000
    var rng = TimerBenchRandom(state: 5)
    var wheel = TimerWheel(now: .zero)
    for index in 0..<timers {
        wheel.schedule(TimerID(UInt64(index)), at: Tick(60 * day + rng.below(340 * day)))
    }
    var fired = 0
    let start = TimerBenchSystem.monotonicNanoseconds()
    wheel.advance(to: Tick(30 * day)) { _, _ in fired += 1 }
    let elapsed = TimerBenchSystem.monotonicNanoseconds() - start
    return (Double(elapsed) / 1000, fired)
}

struct TimerLatenessResult {
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
func timerMeasureLateness<Queue: TimerBenchQueue>(
    _: Queue.Type, timers: Int, seconds: UInt64, tickNs: UInt64
) -> TimerLatenessResult {
    var rng = TimerBenchRandom(state: 31)
    let spanNs = seconds * 1_000_000_000
    var exactOffset = [UInt64](repeating: 0, count: timers)
    var queue = Queue(benchNow: 0, capacity: 0)
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
    let epoch = TimerBenchSystem.monotonicNanoseconds()
    while queue.benchCount > 0 {
        let woke = TimerBenchSystem.monotonicNanoseconds()
        let tick = (woke - epoch) / tickNs
        queue.benchAdvance(to: tick) { id, deadline in
            let firedAt = Int64(TimerBenchSystem.monotonicNanoseconds() - epoch)
            vsTick.append(firedAt - Int64(deadline * tickNs))
            vsExact.append(firedAt - Int64(exactOffset[Int(id)]))
        }
        let now = TimerBenchSystem.monotonicNanoseconds()
        slowestAdvance = max(slowestAdvance, now - woke)
        guard let next = queue.benchNextDeadline else {
            break
        }
        TimerBenchSystem.sleep(untilMonotonicNanoseconds: min(epoch + next * tickNs, now + tickNs))
        wakeups += 1
    }
    vsTick.sort()
    vsExact.sort()
    func ms(_ value: Int64?) -> Double {
        Double(value ?? 0) / 1e6
    }
    let earliest = min(vsTick.first ?? 0, vsExact.first ?? 0)
    return TimerLatenessResult(
        name: Queue.benchName,
        tickP50Ms: ms(timerPercentile(vsTick, 0.5)), tickP99Ms: ms(timerPercentile(vsTick, 0.99)), tickMaxMs: ms(vsTick.last),
        exactP50Ms: ms(timerPercentile(vsExact, 0.5)), exactP99Ms: ms(timerPercentile(vsExact, 0.99)), exactMaxMs: ms(vsExact.last),
        minMs: ms(earliest), wakeups: wakeups, slowestAdvanceMs: Double(slowestAdvance) / 1e6,
        fired: vsTick.count, neverEarly: earliest >= 0)
}
