extension HTTPServer {
    /// Stops the server gracefully:
    /// 1. stops accepting (new connection attempts are refused) and marks every
    ///    response from now on with `Connection: close`;
    /// 2. waits, polling every few milliseconds, until no request is in flight
    ///    or `gracePeriod` has passed (cancelling the calling task ends the wait early);
    /// 3. gives up on async handlers still running (their connections get a 503
    ///    if libmicrohttpd still gets to send it; the handler's task is NOT cancelled
    ///    and its result is dropped), then stops the daemon, closing every connection.
    ///
    /// Idempotent: concurrent or later calls wait until the first one has finished.
    /// Calling it on a server never started just marks it stopped.
    /// Not guaranteed: idle keep-alive connections are closed without notice, and
    /// `MHD_stop_daemon` (step 3) blocks the calling thread while worker threads exit.
    public func shutdown(gracePeriod: Duration) async {
        let (daemon, listenFD) = lifecycleBeginShutdown()
        guard let daemon, let listenFD else {
            await waitUntilStopped()
            return
        }
        core.draining.store(true, ordering: .sequentiallyConsistent)
        let quiesced = daemon.quiesce()
        if quiesced { ListeningSocket.stopListening(listenFD) }

        let deadline = ContinuousClock.now + gracePeriod
        while core.inFlight.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                break // cancelled: end the grace period now
            }
        }

        core.suspended.closeAndAbandonAll()
        daemon.stop()
        // After a successful quiesce the socket is ours to close; otherwise MHD_stop_daemon closed it.
        if quiesced { ListeningSocket.close(listenFD) }
        lifecycleFinishShutdown()
    }

    /// Moves running → draining and returns the daemon, or nil if another call owns shutdown.
    private func lifecycleBeginShutdown() -> (MHDDaemon?, Int32?) {
        lifecycle.withLock { state -> (MHDDaemon?, Int32?) in
            switch state {
            case .running(let daemon, let listenFD, _):
                state = .draining
                return (daemon, listenFD)
            case .idle:
                state = .stopped
                return (nil, nil)
            case .draining, .stopped:
                return (nil, nil)
            }
        }
    }

    private func lifecycleFinishShutdown() {
        lifecycle.withLock { $0 = .stopped }
    }

    private func waitUntilStopped() async {
        while !lifecycle.withLock({ state -> Bool in if case .stopped = state { true } else { false } }) {
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                return
            }
        }
    }
}
