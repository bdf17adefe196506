import Synchronization
import TandemCore

/// A clock that moves only when the test says so, for the simulators' delays. A sleeper cancelled before
/// its deadline throws `CancellationError`.
final class SimulatorTestClock: SchedulerClock {
    private struct Sleeper {
        let id: Int
        let deadline: Timestamp
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let state: Mutex<(now: Timestamp, next: Int, sleepers: [Sleeper])>

    init(_ start: Timestamp = Timestamp(milliseconds: 1_000_000)) { state = Mutex((start, 0, [])) }

    func now() -> Timestamp { state.withLock { $0.now } }

    func sleep(until deadline: Timestamp) async throws {
        let id = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume = state.withLock { state -> Bool in
                    if state.now >= deadline || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resume { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now + duration
            let due = state.sleepers.filter { $0.deadline <= state.now }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Sleepers waiting (to let a test wait until the simulator's timer task is parked).
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }
}

/// Collects what a callback was handed, for tests to read.
final class Collected<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(contentsOf batch: [Element]) { items.withLock { $0 += batch } }
    var all: [Element] { items.withLock { $0 } }
}

/// Log lines written by a `Logger`, for tests that read what a newcomer would see.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var logger: Logger { Logger(minimumLevel: .debug, now: { 0 }, sink: { line in self.lines.withLock { $0.append(line) } }) }
    var all: [String] { lines.withLock { $0 } }
}
