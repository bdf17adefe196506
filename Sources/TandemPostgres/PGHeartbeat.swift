import Synchronization

/// Whether the PostgreSQL server answered lately, for `/healthz`, which must not wait for a round trip: a task
/// asks `SELECT 1` through the reader pool every `interval` and remembers when it last got an answer.
///
/// ``isReachable`` is true while the last answer is at most `staleness` old and no beat has failed since — so a
/// server that stops answering (a read that hangs as well as one that fails) reads as unreachable within
/// `staleness`. No I/O: a lock and a clock read.
final class PGHeartbeat: Sendable {
    private struct State {
        var lastAnswer: ContinuousClock.Instant?
        var task: Task<Void, Never>?
        var stopped = false
    }

    let interval: Duration
    let staleness: Duration
    private let state = Mutex(State())

    init(interval: Duration = .seconds(1), staleness: Duration = .seconds(3)) {
        self.interval = interval
        self.staleness = staleness
    }

    var isReachable: Bool {
        state.withLock { state in
            guard let last = state.lastAnswer else { return false }
            return ContinuousClock.now - last <= staleness
        }
    }

    /// Records one beat's outcome: an answer now, or none. Ignored once stopped (a beat still in flight then).
    func record(answered: Bool) {
        state.withLock { state in
            guard !state.stopped else { return }
            state.lastAnswer = answered ? ContinuousClock.now : nil
        }
    }

    /// Beats every ``interval`` until ``stop()``: `beat` answers whether the server answered.
    func start(_ beat: @escaping @Sendable () async -> Bool) {
        let task = Task { [self] in
            while !Task.isCancelled {
                record(answered: await beat())
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
        let refused = state.withLock { state -> Bool in
            guard !state.stopped, state.task == nil else { return true }
            state.task = task
            return false
        }
        if refused { task.cancel() }
    }

    /// Stops beating; the server reads as unreachable from then on. Idempotent.
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.lastAnswer = nil
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }
}
