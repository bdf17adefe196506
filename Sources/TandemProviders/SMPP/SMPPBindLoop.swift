import TandemCore

/// One bind's dedicated thread: connect, `bind_transceiver`, move parts from the shared outbox into
/// this connection's window, read responses and receipts, keep the link alive — and on any failure
/// hand the unanswered parts back, wait a jittered back-off and start over, until the client stops.
///
/// Everything here is confined to the thread (`run()` is its whole life); it shares only the dispatcher
/// (locked), its wake-up pair, and the socket, which report tasks write `deliver_sm_resp` to.
final class SMPPBindLoop {
    let index: Int
    let dispatcher: SMPPDispatcher
    let logger: Logger
    var settings: SMPPClient.Settings { dispatcher.settings }
    var wakeup: SMPPWakeup { dispatcher.wakeups[index] }
    /// Consecutive connections that ended without a successful bind, for the back-off.
    private var failures = 0

    init(index: Int, dispatcher: SMPPDispatcher) {
        self.index = index
        self.dispatcher = dispatcher
        self.logger = dispatcher.logger.with(["bind": .int(Int64(index))])
    }

    enum Ending {
        /// The client is stopping: the thread exits.
        case stopped
        /// The connection failed or ended; `wasBound` if it had bound first.
        case ended(wasBound: Bool)
    }

    func run() {
        while !dispatcher.isStopping {
            switch runConnection() {
            case .stopped:
                break
            case .ended(let wasBound):
                failures = wasBound ? 1 : failures + 1
                sleep(for: backoff(failures))
            }
        }
        dispatcher.threadExited(bind: index)
    }

    /// Connects and runs one connection to its end.
    private func runConnection() -> Ending {
        dispatcher.update { $0.bindAttempts += 1 }
        let socket: SMPPSocket
        do {
            socket = try SMPPSocket.connect(host: settings.host, port: settings.port, timeout: settings.connectTimeout)
        } catch {
            bindFailed(error)
            return dispatcher.isStopping ? .stopped : .ended(wasBound: false)
        }
        var connection = SMPPConnectionRun(loop: self, socket: socket)
        return connection.run()
    }

    /// Records and logs a failed bind attempt.
    func bindFailed(_ error: SMPPBindError) {
        dispatcher.update { $0.lastBindError = error }
        logger.error("SMPP bind failed; retrying after back-off", ["error": .string(error.description),
                                                                   "host": .string(settings.host),
                                                                   "systemID": .string(settings.systemID)])
    }

    /// `reconnectBackoff.lowerBound · 2^(failures − 1)` capped at the upper bound, then ± 25 % jitter,
    /// never below the lower bound.
    private func backoff(_ failures: Int) -> Duration {
        let base = SMPPSession.backoff(settings.reconnectBackoff, streak: failures)
        return max(settings.reconnectBackoff.lowerBound, base * Double.random(in: 0.75...1.25))
    }

    /// Waits `delay` (or until the client stops), rejecting expired parts meanwhile.
    private func sleep(for delay: Duration) {
        let until = ContinuousClock.now + delay
        while true {
            let now = ContinuousClock.now
            let (stopping, nextExpiry) = dispatcher.housekeeping(now: now)
            guard now < until, !stopping else { return }
            let wake = nextExpiry.map { min($0, until) } ?? until
            if SMPPPoll.wait(socket: nil, wakeup: wakeup, timeout: wake - now).woken { wakeup.drain() }
        }
    }
}
