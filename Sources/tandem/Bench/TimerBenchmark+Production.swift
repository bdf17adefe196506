import TandemCore

/// Schedule+cancel in the scheduler's own pattern, as opposed to `measureChurn`'s uniform worst case:
/// - ids are sequential, as the scheduler makes them (delivery row id × 4 + timer kind);
/// - `pending` background timers (SMS validity, long lifetimes) are due 1–49 h out, so none fire;
/// - each op schedules a 30 s fallback timer for a new delivery (`now + 3000` ticks) and cancels the one
///   scheduled `ackLag` ops earlier, whose ack has just arrived;
/// - the clock moves one tick every 100 ops and the queue is advanced to it (included in the figure).
/// Returns nanoseconds per op (schedule + cancel + the amortised advance).
func measureProductionChurn<Queue: BenchTimerQueue>(_: Queue.Type, pending: Int, operations: Int, seed: UInt64,
                                                    ackLag: Int = 2_000) -> Double {
    var rng = BenchRandom(state: seed)
    var queue = Queue(benchNow: 0)
    var row: UInt64 = 1
    let hour: UInt64 = 360_000
    for _ in 0..<pending {
        queue.benchSchedule(row &* 4 &+ 3, at: hour + rng.below(48 * hour))
        row += 1
    }
    var recent = [UInt64](repeating: 0, count: ackLag)
    var now: UInt64 = 0
    var fired = 0
    func step(_ index: Int, cancelling: Bool) {
        let id = row &* 4
        row += 1
        queue.benchSchedule(id, at: now + 3_000)
        let slot = index % ackLag
        if cancelling {
            let cancelled = queue.benchCancel(recent[slot])
            precondition(cancelled, "cancel of a pending fallback timer failed")
        }
        recent[slot] = id
        if index % 100 == 99 {
            now += 1
            queue.benchAdvance(to: now) { _, _ in fired += 1 }
        }
    }
    for index in 0..<ackLag { step(index, cancelling: false) }          // fill the ack window, untimed
    for index in ackLag..<(ackLag + min(operations / 10, 200_000)) { step(index, cancelling: true) }  // warm-up
    let first = ackLag + min(operations / 10, 200_000)
    let start = BenchSystem.monotonicNanoseconds()
    for index in first..<(first + operations) { step(index, cancelling: true) }
    let elapsed = BenchSystem.monotonicNanoseconds() - start
    precondition(fired == 0, "no timer is due within the run")
    precondition(queue.benchCount == pending + ackLag, "pending count drifted")
    return Double(elapsed) / Double(operations)
}
