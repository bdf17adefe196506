import Synchronization
import TandemCore

/// What the client and its bind threads share: the outbox of parts waiting for a window, the phase
/// (running or stopping), the report handler, the status counters, and one wake-up per bind thread —
/// all behind one lock, held only for queue and counter updates (never across I/O or a callback).
///
/// Lifecycle: `running` → `stopping` (`stop()`: new submits refused, waiting parts rejected, threads
/// unbind and exit) → every thread has called `threadExited`, and the shutdown waiters resume.
final class SMPPDispatcher: Sendable {
    let settings: SMPPClient.Settings
    let logger: Logger
    let wakeups: [SMPPWakeup]
    private let references = Atomic<UInt8>(0)
    private let shared = Mutex(Shared())

    private struct Shared: ~Copyable {
        var outbox = SMPPOutbox()
        var stopping = false
        var started = false
        var runningThreads = 0
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
        var handler: SMSReportHandler?
        var status = SMPPClient.Status()
        var bound: Set<Int> = []
    }

    init(settings: SMPPClient.Settings, logger: Logger) throws(SMPPClientError) {
        self.settings = settings
        self.logger = logger
        var wakeups: [SMPPWakeup] = []
        for _ in 0..<settings.binds {
            guard let wakeup = SMPPWakeup() else { throw .resourceUnavailable("socketpair failed") }
            wakeups.append(wakeup)
        }
        self.wakeups = wakeups
    }

    /// The concatenation reference for the next multipart SMS (rolling, 8-bit).
    func nextReference() -> UInt8 {
        references.wrappingAdd(1, ordering: .relaxed).newValue
    }

    // MARK: Client side

    var reportHandler: SMSReportHandler? { shared.withLock { $0.handler } }

    func setReportHandler(_ handler: @escaping SMSReportHandler) {
        shared.withLock { $0.handler = handler }
    }

    /// True the first time (the caller then starts the threads), false after.
    func markStarted() -> Bool {
        shared.withLock { shared in
            guard !shared.started, !shared.stopping else { return false }
            shared.started = true
            shared.runningThreads = settings.binds
            return true
        }
    }

    /// A thread could not be started after all: counts it as exited.
    func threadFailedToStart() { threadExited(bind: -1) }

    /// Queues `parts`; false when stopping.
    func enqueue(_ parts: [SMPPPart]) -> Bool {
        let wake = shared.withLock { shared -> Set<Int>? in
            guard !shared.stopping else { return nil }
            return shared.outbox.enqueue(parts)
        }
        guard let wake else { return false }
        for bind in wake { wakeups[bind].wake() }
        return true
    }

    /// Stops accepting, rejects waiting parts, wakes every thread. Returns once every thread exited
    /// (at once if none ever started).
    func stop() async {
        let waiting = shared.withLock { shared -> [SMPPPart] in
            shared.stopping = true
            return shared.outbox.removeAll()
        }
        for part in waiting { part.submission.reject("SMPP client shut down before the SMS was submitted") }
        for wakeup in wakeups { wakeup.wake() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { shared -> Bool in
                if shared.runningThreads == 0 { return true }
                shared.exitWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// `stop()` without waiting (the client was dropped).
    func abandon() {
        let waiting = shared.withLock { shared -> [SMPPPart] in
            shared.stopping = true
            return shared.outbox.removeAll()
        }
        for part in waiting { part.submission.reject("SMPP client released before the SMS was submitted") }
        for wakeup in wakeups { wakeup.wake() }
    }

    var status: SMPPClient.Status {
        shared.withLock { shared in
            var status = shared.status
            status.boundBinds = shared.bound.count
            return status
        }
    }

    // MARK: Bind threads

    var isStopping: Bool { shared.withLock { $0.stopping } }

    /// Up to `limit` parts for `bind` to write (parts past their deadline are rejected on the way).
    /// When none are waiting, `bind` is woken by the next `enqueue`.
    func take(_ limit: Int, for bind: Int, now: ContinuousClock.Instant) -> [SMPPPart] {
        var expired: [SMPPSubmission] = []
        let parts = shared.withLock { shared -> [SMPPPart] in
            guard !shared.stopping else { return [] }
            var parts: [SMPPPart] = []
            while parts.count < limit, let part = shared.outbox.next(for: bind, now: now, expired: &expired) {
                parts.append(part)
            }
            return parts
        }
        rejectExpired(expired)
        return parts
    }

    /// Puts parts back at the front of the queue (throttled, or their connection ended); when stopping,
    /// rejects them instead.
    func handBack(_ parts: [SMPPPart], reason: String) {
        guard !parts.isEmpty else { return }
        let wake = shared.withLock { shared -> Set<Int>? in
            guard !shared.stopping else { return nil }
            return shared.outbox.handBack(parts)
        }
        guard let wake else {
            for part in parts { part.submission.reject("SMPP client shut down before submit_sm_resp (\(reason))") }
            return
        }
        for bind in wake { wakeups[bind].wake() }
    }

    /// What a bind thread checks on every turn of its loop, in one lock: rejects waiting parts past their
    /// deadline, and says whether the client is stopping and when the next waiting part expires.
    func housekeeping(now: ContinuousClock.Instant) -> (stopping: Bool, nextExpiry: ContinuousClock.Instant?) {
        var expired: [SMPPSubmission] = []
        let state = shared.withLock { shared -> (Bool, ContinuousClock.Instant?) in
            if let earliest = shared.outbox.earliestDeadline, earliest <= now {
                expired = shared.outbox.expire(now: now)
            }
            return (shared.stopping, shared.outbox.earliestDeadline)
        }
        rejectExpired(expired)
        return state
    }

    private func rejectExpired(_ submissions: [SMPPSubmission]) {
        for submission in submissions {
            submission.reject("no SMPP bind with room to submit within the allowed wait")
        }
    }

    func update(_ change: (inout SMPPClient.Status) -> Void) {
        shared.withLock { change(&$0.status) }
    }

    func bindChanged(_ bind: Int, up: Bool) {
        shared.withLock { shared in
            if up { shared.bound.insert(bind) } else { shared.bound.remove(bind) }
        }
    }

    func threadExited(bind: Int) {
        let waiters = shared.withLock { shared -> [CheckedContinuation<Void, Never>] in
            shared.runningThreads -= 1
            shared.bound.remove(bind)
            guard shared.runningThreads == 0 else { return [] }
            defer { shared.exitWaiters.removeAll() }
            return shared.exitWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
