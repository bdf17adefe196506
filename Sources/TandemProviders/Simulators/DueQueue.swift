import Synchronization
import TandemCore

/// Items that fall due at a time on a ``SchedulerClock``, handed to one consumer in batches by one task —
/// not a timer per item (like an SMSC's DLR stream).
///
/// Items are handed over in due order; items due at the same millisecond keep the order they were queued
/// in. The task wakes at the earliest due item or after `pollInterval`, whichever is first, so an item
/// queued to fall due before the one being waited for is at most `pollInterval` late; with nothing queued it
/// waits until something is. A batch is handed over only after the previous one was consumed.
///
/// Not guaranteed: promptness while the consumer is slow (later batches wait); delivery of items still
/// queued when the queue is released (they are dropped).
final class DueQueue<Item: Sendable>: Sendable {
    private let core: Core
    private let runner = Mutex<Task<Void, Never>?>(nil)

    init(clock: any SchedulerClock, pollInterval: Duration = .milliseconds(10)) {
        core = Core(clock: clock, pollInterval: pollInterval)
    }

    deinit {
        runner.withLock { $0?.cancel() }
    }

    /// Starts handing due items to `consume` (replacing an earlier consumer). Until then nothing is queued.
    func start(_ consume: @escaping @Sendable ([Item]) async -> Void) {
        core.state.withLock { $0.started = true }
        let core = core
        let task = Task { await core.run(consume) }
        runner.withLock { running in
            running?.cancel()
            running = task
        }
    }

    /// Stops the task; queued items stay queued for a later `start`.
    func stop() {
        runner.withLock { running in
            running?.cancel()
            running = nil
        }
    }

    /// Whether a consumer was ever started (items are queued only then).
    var isStarted: Bool { core.state.withLock { $0.started } }

    /// Queues `item` for `due`; returns false (dropping it) when no consumer was ever started.
    @discardableResult
    func schedule(_ item: Item, at due: Timestamp) -> Bool {
        schedule([(item, due)])
    }

    /// Queues several items at once: none is handed over before all are queued (so items due together,
    /// queued together, come in one batch, in this order).
    @discardableResult
    func schedule(_ items: [(Item, Timestamp)]) -> Bool {
        guard !items.isEmpty else { return isStarted }
        let (queued, waiter) = core.state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.started else { return (false, nil) }
            for (item, due) in items { state.insert(item, at: due) }
            return (true, state.waiter.take())
        }
        waiter?.resume()
        return queued
    }

    /// Items queued and not yet handed over.
    var count: Int { core.state.withLock { $0.pending.count - $0.head } }

    private final class Core: Sendable {
        let clock: any SchedulerClock
        let pollInterval: Duration
        let state = Mutex(State())

        init(clock: any SchedulerClock, pollInterval: Duration) {
            self.clock = clock
            self.pollInterval = pollInterval
        }

        func run(_ consume: @Sendable ([Item]) async -> Void) async {
            while !Task.isCancelled {
                let now = clock.now()
                let (due, next) = state.withLock { $0.takeDue(now) }
                if !due.isEmpty {
                    await consume(due)
                } else if let next {
                    do {
                        try await clock.sleep(until: min(next, now + pollInterval))
                    } catch {
                        return
                    }
                } else {
                    await waitForWork()
                }
            }
        }

        /// Returns once something is queued, or the task is cancelled.
        private func waitForWork() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.head < state.pending.count || Task.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiter.take() }?.resume()
            }
        }
    }

    private struct State {
        /// Sorted by due time, FIFO within one; `pending[..<head]` were handed over already.
        var pending: [(due: Timestamp, item: Item)] = []
        var head = 0
        var started = false
        var waiter: CheckedContinuation<Void, Never>?

        mutating func insert(_ item: Item, at due: Timestamp) {
            // Upper bound: after every item due at the same time or earlier. Usually the end (constant delays).
            var low = head, high = pending.count
            if let last = pending.last, last.due <= due {
                low = high
            }
            while low < high {
                let middle = (low + high) / 2
                if pending[middle].due <= due { low = middle + 1 } else { high = middle }
            }
            pending.insert((due, item), at: low)
        }

        /// The items due at `now`, and when the next one falls due.
        mutating func takeDue(_ now: Timestamp) -> ([Item], Timestamp?) {
            var end = head
            while end < pending.count, pending[end].due <= now { end += 1 }
            let due = pending[head..<end].map(\.item)
            head = end
            if head == pending.count {
                pending.removeAll(keepingCapacity: pending.count < 65_536)
                head = 0
            } else if head > 4_096, head * 2 > pending.count {
                pending.removeFirst(head)
                head = 0
            }
            return (due, head < pending.count ? pending[head].due : nil)
        }
    }
}
