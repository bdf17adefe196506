import Synchronization

/// What reaches the scheduler from outside its actor without a hop (receipts, ``Scheduler/submitReceipt(_:for:from:completion:)``),
/// and where the scheduler's pipeline task waits while it has nothing to do.
///
/// The pipeline is one long-lived task (``Scheduler/startPipeline()``): it runs the finish loop while batches are
/// in flight, then parks here until work arrives, instead of ending and being started again for the next burst.
/// (A task per burst — two under the receipts benchmark: one to take the submissions in, one for the finish loop —
/// allocated each task's frames anew, large allocations that sent glibc into `malloc_consolidate`: ~5% of the
/// scheduler's thread and ~1% of the HTTP threads.) A parked pipeline holds the scheduler only weakly; the
/// scheduler's `deinit` stops it.
///
/// `watched`, `parked` and the commands change together, under one lock, so that a submission is never left with
/// nobody to look at it: either something on the actor will take the commands in (the pipeline is awake, or a task
/// was started for them), or the submitter wakes the parked pipeline.
final class SchedulerInbox: Sendable {
    private struct State {
        var commands: [Scheduler.Command] = []
        /// Something on the actor will look at `commands`.
        var watched = false
        var parked: UnsafeContinuation<Void, Never>?
        var stopped = false
        /// Submissions that found nobody to take them in (for tests: each started a task).
        var unwatchedSubmissions = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Adds a submitted command and wakes the parked pipeline if nobody watched. True when nobody watched and the
    /// pipeline was not parked either (not started yet, or between its loop and parking): the caller starts a task
    /// to take the command in.
    func submit(_ command: Scheduler.Command) -> Bool {
        let (startTask, parked) = state.withLock { state -> (Bool, UnsafeContinuation<Void, Never>?) in
            state.commands.append(command)
            guard !state.watched else { return (false, nil) }
            state.watched = true
            let parked = state.parked.take()
            if parked == nil { state.unwatchedSubmissions += 1 }
            return (parked == nil, parked)
        }
        parked?.resume()
        return startTask
    }

    /// Swaps the submitted commands into `commands` (which must be empty). With none, and `endingWatch`, the watch
    /// ends: the next submission wakes the pipeline or starts a task.
    func take(into commands: inout [Scheduler.Command], endingWatch: Bool) {
        state.withLock { state in
            swap(&commands, &state.commands)
            if commands.isEmpty && endingWatch { state.watched = false }
        }
    }

    /// Marks the inbox watched (the actor is about to run the finish loop) and resumes the parked pipeline, if it is.
    func watch() {
        let parked = state.withLock { state in
            state.watched = true
            return state.parked.take()
        }
        parked?.resume()
    }

    /// Parks the calling pipeline until work arrives or ``stop()``; returns at once if the inbox is watched (work
    /// arrived since the loop ended its watch) or stopped.
    func park() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let parked = state.withLock { state -> Bool in
                guard !state.watched, !state.stopped else { return false }
                state.parked = continuation
                return true
            }
            if !parked { continuation.resume() }
        }
    }

    /// Ends the pipeline: a parked one is resumed, and it will not park again.
    func stop() {
        let parked = state.withLock { state in
            state.stopped = true
            return state.parked.take()
        }
        parked?.resume()
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Whether the pipeline is parked (for tests).
    var isParked: Bool { state.withLock { $0.parked != nil } }

    /// How many submissions started a task because nobody watched and the pipeline was not parked (for tests).
    var unwatchedSubmissions: Int { state.withLock { $0.unwatchedSubmissions } }
}
