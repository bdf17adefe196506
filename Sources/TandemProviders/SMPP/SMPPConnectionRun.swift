import TandemCore

/// One TCP connection of a bind, from connect to close, on the bind's thread: feeds `SMPPSession` with
/// what the socket delivers and the time, and performs its actions.
///
/// The loop: reject expired parts → (when stopping) wind down → write as many waiting parts as the window
/// and the rate allow, in one write → timers → `poll` until a PDU, a wake-up or the next deadline.
/// Shutdown: wait up to `shutdownGrace` for responses to submits in flight, `unbind`, wait for
/// `unbind_resp` (at most `responseTimeout`), close.
///
/// At the end, parts written without a response are handed back to the outbox (to be written again on
/// the next connection of any bind); parts that got their response never are.
struct SMPPConnectionRun {
    let loop: SMPPBindLoop
    let socket: SMPPSocket
    var session: SMPPSession
    var buffer: [UInt8] = []
    /// Where `recv` writes, reused for every read.
    var scratch = [UInt8](repeating: 0, count: 65_536)
    var closeReason: String?
    var wasBound = false
    /// The SMSC answered the bind with an error (already recorded as the bind error).
    var bindRefused = false
    var graceDeadline: ContinuousClock.Instant?
    var deliveries: [(message: SMPPShortMessage, sequence: UInt32)] = []

    var dispatcher: SMPPDispatcher { loop.dispatcher }
    var settings: SMPPClient.Settings { loop.settings }
    var logger: Logger { loop.logger }

    init(loop: SMPPBindLoop, socket: SMPPSocket) {
        self.loop = loop
        self.socket = socket
        self.session = SMPPSession(limits: loop.settings.limits, now: .now)
    }

    mutating func run() -> SMPPBindLoop.Ending {
        send(session.bind(settings.bindRequest, now: .now))
        while closeReason == nil {
            let now = ContinuousClock.now
            let (stopping, nextExpiry) = dispatcher.housekeeping(now: now)
            if stopping { windDown(now: now) }
            if closeReason == nil { pump(now: now) }
            if closeReason == nil { perform(session.tick(now: now)) }
            guard closeReason == nil else { break }

            var next = session.nextDeadline(now: now)
            for candidate in [nextExpiry, graceDeadline].compactMap({ $0 }) {
                next = next.map { min($0, candidate) } ?? candidate
            }
            let ready = SMPPPoll.wait(socket: socket, wakeup: loop.wakeup, timeout: next.map { $0 - .now })
            if ready.woken { loop.wakeup.drain() }
            if ready.readable { read() }
        }
        return finish()
    }

    /// Closes the socket, hands back what was never answered, and says how it ended.
    private mutating func finish() -> SMPPBindLoop.Ending {
        let reason = closeReason ?? "closed"
        let unanswered = session.close()
        socket.close()
        if wasBound {
            dispatcher.bindChanged(loop.index, up: false)
            if dispatcher.isStopping {
                logger.info("SMPP bind closed", ["reason": .string(reason)])
            } else {
                logger.warning("SMPP connection lost; reconnecting", ["reason": .string(reason),
                                                                      "unanswered": .int(Int64(unanswered.count))])
            }
        } else if !dispatcher.isStopping, !bindRefused {
            loop.bindFailed(.connectionLost(reason))
        }
        if !unanswered.isEmpty {
            dispatcher.update { $0.partsHandedBack += unanswered.count }
            dispatcher.handBack(unanswered, reason: reason)
        }
        return dispatcher.isStopping ? .stopped : .ended(wasBound: wasBound)
    }

    /// When the client stops: abandon a bind in progress; once bound, wait for the window to drain (at
    /// most `shutdownGrace`), then `unbind` and wait for `unbind_resp` (the session's response timeout).
    private mutating func windDown(now: ContinuousClock.Instant) {
        switch session.phase {
        case .binding:
            closeReason = "shutting down"
        case .bound:
            let deadline = graceDeadline ?? now + settings.shutdownGrace
            graceDeadline = deadline
            if session.submitsInFlight == 0 || deadline <= now, let unbind = session.unbind(now: now) {
                graceDeadline = nil
                send(unbind)
            }
        case .unbinding:
            break
        case .closed:
            closeReason = closeReason ?? "closed"
        }
    }

    /// Writes waiting parts while the session allows, as one write.
    private mutating func pump(now: ContinuousClock.Instant) {
        var writer = SMPPWireWriter(capacity: 256)
        var written = 0, rewritten = 0
        while session.canSubmit(now: now) {
            let limit = settings.submitsPerSecond == nil ? session.windowSpace : 1
            let parts = dispatcher.take(limit, for: loop.index, now: now)
            if parts.isEmpty { break }
            for part in parts {
                if part.writes > 0 { rewritten += 1 }
                session.submit(part, now: now, into: &writer)
                written += 1
            }
        }
        guard written > 0 else { return }
        let maxInFlight = session.maxSubmitsInFlight
        dispatcher.update { status in
            status.submitsWritten += written
            status.resubmissions += rewritten
            status.maxInFlight = max(status.maxInFlight, maxInFlight)
        }
        send(writer.bytes)
    }

    mutating func send(_ bytes: [UInt8]) {
        if !socket.send(bytes) { closeReason = closeReason ?? "write to the SMSC failed" }
    }

    mutating func perform(_ actions: [SMPPSession.Action]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                send(bytes)
            case .bound(let systemID):
                wasBound = true
                dispatcher.bindChanged(loop.index, up: true)
                dispatcher.update { $0.bindsSucceeded += 1 }
                logger.info("SMPP bound", ["smsc": .string(systemID), "host": .string(settings.host)])
            case .bindRefused(let status):
                loop.bindFailed(.refused(status))
                bindRefused = true
                closeReason = "bind refused: \(status)"
            case .accepted(let part, let messageID):
                dispatcher.update { $0.partsAccepted += 1 }
                part.submission.accepted(part: part.index, messageID: messageID)
            case .refused(let part, let status):
                logger.warning("SMPP submit_sm refused", ["status": .string(status.description)])
                part.submission.reject("submit_sm refused: \(status)")
            case .throttled(let part, let status, let pause):
                dispatcher.update { $0.throttled += 1 }
                logger.debug("SMPP throttled; resubmitting after a pause",
                             ["status": .string(status.name), "pauseMs": .int(Int64(pause.milliseconds))])
                dispatcher.handBack([part], reason: status.name)
            case .deliver(let message, let sequence):
                deliveries.append((message, sequence))
            case .close(let reason):
                closeReason = closeReason ?? reason
            case .unbound:
                dispatcher.update { $0.unbindsAcknowledged += 1 }
                closeReason = closeReason ?? "unbound"
            }
        }
    }
}
