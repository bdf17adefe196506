import TandemCore

/// Timer wheel benchmark beside a binary-heap reference, measured in the same process.
/// Returns the report; `progress` receives one line per finished measurement.
/// `quick` shrinks sizes (for CI smoke runs); the full run takes about a minute.
func runTimerBenchmark(quick: Bool, progress: (String) -> Void = { _ in }) -> String {
    let tickNs: UInt64 = 10_000_000
    let horizon: UInt64 = 360_000 // 1 h at 10 ms
    let sizes = quick ? [1_000, 100_000, 1_000_000] : [1_000, 1_000_000, 10_000_000]
    let operations = quick ? 300_000 : 2_000_000
    let firingTimers = quick ? 200_000 : 1_000_000
    let firingSeconds: UInt64 = quick ? 3 : 10

    var lines: [String] = []
    #if DEBUG
    lines.append("WARNING: debug build; use `swift run -c release WheelBench`")
    #endif
    lines.append("Timer wheel vs binary heap — \(BenchSystem.cpuModel), \(BenchSystem.onlineCores) cores online, "
        + "load average at start \(BenchSystem.loadAverage())\(quick ? ", QUICK sizes" : "")")
    lines.append("tick 10 ms; random deadlines uniform over 1 h (\(horizon) ticks); ids sparse 64-bit "
        + "(SplitMix64 of a counter); heap = indexed binary min-heap + Dictionary id→handle")
    lines.append("")

    // schedule + cancel churn at constant N.
    lines.append("schedule+cancel, uniform worst case (memory-latency bound): 1 op = schedule a new random-id timer + cancel a random pending one, N constant, "
        + "\(operations / 1_000_000 > 0 ? "\(operations / 1_000_000)M" : "\(operations / 1000)k") timed ops")
    lines.append("  pending N   wheel ns/op   heap ns/op   harness ns/op (reading the op stream, included in both)")
    var wheelChurn: [ChurnResult] = []
    var heapChurn: [ChurnResult] = []
    for size in sizes {
        let harness = measureHarness(operations: operations)
        let wheel = measureChurn(TimerWheel.self, pending: size, operations: operations, seed: 7, horizon: horizon)
        progress("churn wheel N=\(size): \(formatFixed(wheel.nanosecondsPerOperation)) ns/op")
        let heap = measureChurn(BinaryHeapTimers.self, pending: size, operations: operations, seed: 7, horizon: horizon)
        progress("churn heap N=\(size): \(formatFixed(heap.nanosecondsPerOperation)) ns/op")
        wheelChurn.append(wheel)
        heapChurn.append(heap)
        lines.append("  \(padded(countLabel(size), 9))   \(padded(formatFixed(wheel.nanosecondsPerOperation), 11))"
            + "   \(padded(formatFixed(heap.nanosecondsPerOperation), 10))   \(padded(formatFixed(harness), 13))")
    }
    if let wheelFirst = wheelChurn.first, let wheelLast = wheelChurn.last,
       let heapFirst = heapChurn.first, let heapLast = heapChurn.last {
        let label = "\(countLabel(sizes[sizes.count - 1]))/\(countLabel(sizes[0]))"
        lines.append("  ratio \(label)   "
            + padded(formatFixed(wheelLast.nanosecondsPerOperation / wheelFirst.nanosecondsPerOperation, 2), 7)
            + "   " + padded(formatFixed(heapLast.nanosecondsPerOperation / heapFirst.nanosecondsPerOperation, 2), 10))
        lines.append("")
        lines.append("memory at \(countLabel(sizes[sizes.count - 1])) pending (bytes per pending timer):")
        for (name, result) in [("wheel", wheelLast), ("heap ", heapLast)] {
            lines.append("  \(name): \(formatFixed(result.estimatedBytesPerTimer)) estimated from capacities, "
                + "\(formatFixed(result.residentBytesPerTimer)) by RSS delta; prefill \(formatFixed(result.prefillSeconds, 2)) s, "
                + "slowest single schedule \(formatFixed(result.slowestScheduleMs)) ms (growth/rehash pause)")
        }
    }
    lines.append("")

    // The scheduler's pattern: sequential ids, fixed 30 s spans, cancels shortly after scheduling.
    lines.append("schedule+cancel, production pattern (the scheduler's own access pattern): sequential ids (row × 4 + kind),")
    lines.append("  N background timers due 1–49 h out; 1 op = schedule a 30 s fallback + cancel the one scheduled 2,000 ops")
    lines.append("  earlier (its ack arrived); the clock advances 1 tick per 100 ops (advance cost included)")
    lines.append("  pending N   wheel ns/op   heap ns/op")
    var wheelProduction: [Double] = []
    var heapProduction: [Double] = []
    for size in sizes {
        let wheel = measureProductionChurn(TimerWheel.self, pending: size, operations: operations, seed: 11)
        progress("production wheel N=\(size): \(formatFixed(wheel)) ns/op")
        let heap = measureProductionChurn(BinaryHeapTimers.self, pending: size, operations: operations, seed: 11)
        progress("production heap N=\(size): \(formatFixed(heap)) ns/op")
        wheelProduction.append(wheel)
        heapProduction.append(heap)
        lines.append("  \(padded(countLabel(size), 9))   \(padded(formatFixed(wheel), 11))   \(padded(formatFixed(heap), 10))")
    }
    if let wheelFirst = wheelProduction.first, let wheelLast = wheelProduction.last,
       let heapFirst = heapProduction.first, let heapLast = heapProduction.last {
        lines.append("  ratio \(countLabel(sizes[sizes.count - 1]))/\(countLabel(sizes[0]))   "
            + padded(formatFixed(wheelLast / wheelFirst, 2), 7) + "   " + padded(formatFixed(heapLast / heapFirst, 2), 10)
            + "      targets: wheel ≤ 150 ns/op at 10M, ratio ≤ 1.5")
    }
    lines.append("")

    // Draining: everything due in one advance.
    let wheelDrain = measureDrain(TimerWheel.self, timers: firingTimers, horizon: horizon)
    let heapDrain = measureDrain(BinaryHeapTimers.self, timers: firingTimers, horizon: horizon)
    progress("drain: wheel \(formatFixed(wheelDrain)) ns/timer, heap \(formatFixed(heapDrain)) ns/timer")
    lines.append("drain: \(countLabel(firingTimers)) timers over 1 h fired by one advance(to: +1 h): "
        + "wheel \(formatFixed(wheelDrain)) ns/timer, heap \(formatFixed(heapDrain)) ns/timer")
    let gap = measureIdleGap(timers: firingTimers)
    lines.append("idle gap: wheel advance over 30 days (259.2M ticks) with \(countLabel(firingTimers)) timers "
        + "60–400 days out: \(formatFixed(gap.microseconds, 1)) µs, fired \(gap.fired)")
    lines.append("")

    // Real-clock lateness.
    lines.append("firing lateness, real clock: \(countLabel(firingTimers)) timers due over ~\(firingSeconds) s, "
        + "10 ms ticks; loop sleeps until nextDeadline (≤ 1 tick), advances to the current tick")
    lines.append("  queue  vs tick deadline p50 / p99 / max     vs exact deadline p50 / p99 / max     min       wake-ups  slowest advance  never early")
    for result in [
        measureLateness(TimerWheel.self, timers: firingTimers, seconds: firingSeconds, tickNs: tickNs),
        measureLateness(BinaryHeapTimers.self, timers: firingTimers, seconds: firingSeconds, tickNs: tickNs),
    ] {
        progress("lateness \(result.name): p99 \(formatFixed(result.exactP99Ms, 2)) ms")
        lines.append("  \(result.name.padding(5))  "
            + "\(formatFixed(result.tickP50Ms, 2)) / \(formatFixed(result.tickP99Ms, 2)) / \(formatFixed(result.tickMaxMs, 2)) ms"
            + "            \(formatFixed(result.exactP50Ms, 2)) / \(formatFixed(result.exactP99Ms, 2)) / \(formatFixed(result.exactMaxMs, 2)) ms"
            + "      \(formatFixed(result.minMs, 3)) ms  \(padded(String(result.wakeups), 8))  "
            + "\(padded(formatFixed(result.slowestAdvanceMs, 2), 10)) ms  \(result.neverEarly ? "yes" : "NO")"
            + (result.fired == firingTimers ? "" : "  (fired \(result.fired) of \(firingTimers)!)"))
    }
    lines.append("  (exact deadline = uniform real time, rounded up to the next tick when scheduled: includes ≤ 1 tick of rounding)")
    lines.append("")
    lines.append("load average at end \(BenchSystem.loadAverage())")
    return lines.joined(separator: "\n")
}

struct ChurnResult {
    var nanosecondsPerOperation: Double
    var estimatedBytesPerTimer: Double
    var residentBytesPerTimer: Double
    var prefillSeconds: Double
    var slowestScheduleMs: Double
}

func countLabel(_ count: Int) -> String {
    if count >= 1_000_000 && count % 1_000_000 == 0 {
        return "\(count / 1_000_000)M"
    }
    if count >= 1000 && count % 1000 == 0 {
        return "\(count / 1000)k"
    }
    return String(count)
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
