/// One SMPP connection's protocol state, from `bind_transceiver` to close. Pure: the bind loop passes
/// in every PDU received and the time, and performs the actions returned; timers are data here
/// (`nextDeadline(now:)` says when to call `tick(now:)` again).
///
/// - Window: at most `limits.window` `submit_sm` without a response.
/// - Rate: `submit_sm` at least `submitInterval` apart on average (a few milliseconds of lateness are
///   made up, so the rate holds when the loop wakes late); after `ESME_RTHROTTLED`/`ESME_RMSGQFUL`, no
///   `submit_sm` for a back-off that doubles with each consecutive throttle, from `throttleBackoff.lowerBound`
///   up to its upper bound, and resets at the next accepted submit.
/// - Keep-alive: `enquire_link` once nothing has been received for `enquireLinkInterval`.
/// - Any request of ours unanswered for `responseTimeout` ends the connection (`.close`).
///
/// Example, window 2: `submit(a)`, `submit(b)` → `canSubmit` is false; `received(submit_sm_resp b: OK)`
/// → `[.accepted(b, id)]` and room for one more; `received(submit_sm_resp a: ESME_RTHROTTLED)` →
/// `[.throttled(a, …, pause: 1 s)]` and `canSubmit` false for 1 s; `close()` → the parts in flight.
///
/// Not guaranteed: anything about parts after `close()` hands them back — whether the SMSC took them
/// without answering is unknowable, and they will be sent again.
struct SMPPSession {
    struct Limits: Sendable, Hashable {
        var window: Int
        /// Minimum average spacing of `submit_sm` (1 / submits per second); nil: no limit.
        var submitInterval: Duration?
        var enquireLinkInterval: Duration
        var responseTimeout: Duration
        var throttleBackoff: ClosedRange<Duration>
    }

    enum Phase: Sendable, Hashable {
        case binding, bound, unbinding, closed
    }

    enum Action {
        case send([UInt8])
        case bound(systemID: String)
        case bindRefused(SMPPCommandStatus)
        case accepted(SMPPPart, messageID: String)
        /// A permanent refusal of this part.
        case refused(SMPPPart, SMPPCommandStatus)
        /// A transient refusal: hand the part back; this session pauses submits for `pause`.
        case throttled(SMPPPart, SMPPCommandStatus, pause: Duration)
        /// A `deliver_sm` to answer (after the report handler) with `deliver_sm_resp` and `sequence`.
        case deliver(SMPPShortMessage, sequence: UInt32)
        /// The connection must end now, for this reason.
        case close(String)
        /// The SMSC answered our `unbind`: close the connection.
        case unbound
    }

    enum Request {
        case bind, submit(SMPPPart), enquireLink, unbind

        var name: String {
            switch self {
            case .bind: "bind_transceiver"
            case .submit: "submit_sm"
            case .enquireLink: "enquire_link"
            case .unbind: "unbind"
            }
        }
    }

    let limits: Limits
    private(set) var phase = Phase.binding
    private(set) var submitsInFlight = 0
    /// The most `submit_sm` ever in flight at once on this connection.
    private(set) var maxSubmitsInFlight = 0
    private var lastSequence: UInt32 = 0
    private var pending: [UInt32: Request] = [:]
    /// Requests in the order sent, with their deadlines; answered ones are skipped lazily.
    private var deadlines: [(sequence: UInt32, deadline: ContinuousClock.Instant)] = []
    private var deadlinesHead = 0
    private var lastReceived: ContinuousClock.Instant
    private var enquireLinkOutstanding = false
    private var nextSubmitAt: ContinuousClock.Instant
    private var pausedUntil: ContinuousClock.Instant?
    private var throttleStreak = 0

    init(limits: Limits, now: ContinuousClock.Instant) {
        self.limits = limits
        lastReceived = now
        nextSubmitAt = now
    }

    // MARK: Sending

    /// The `bind_transceiver` PDU that opens the session.
    mutating func bind(_ request: SMPPBindRequest, now: ContinuousClock.Instant) -> [UInt8] {
        let sequence = track(.bind, now: now)
        return SMPPPDU(.bindTransceiver(request), sequence: sequence).encoded()
    }

    /// Free places in the window (0 unless bound).
    var windowSpace: Int {
        phase == .bound ? max(0, limits.window - submitsInFlight) : 0
    }

    /// Whether a `submit_sm` may be written now: bound, room in the window, rate and throttle allow.
    func canSubmit(now: ContinuousClock.Instant) -> Bool {
        windowSpace > 0 && nextSubmitAt <= now && (pausedUntil.map { $0 <= now } ?? true)
    }

    /// Appends `part` as a `submit_sm` to `writer`. Call only when `canSubmit(now:)`.
    mutating func submit(_ part: SMPPPart, now: ContinuousClock.Instant, into writer: inout SMPPWireWriter) {
        var part = part
        part.writes += 1
        let sequence = track(.submit(part), now: now)
        SMPPPDU.appendFrame(.submitSM, sequence: sequence, body: part.body, to: &writer)
        submitsInFlight += 1
        maxSubmitsInFlight = max(maxSubmitsInFlight, submitsInFlight)
        if let interval = limits.submitInterval {
            let slack = min(interval, .milliseconds(5))
            nextSubmitAt = max(nextSubmitAt, now - slack) + interval
        }
    }

    /// The `unbind` PDU if bound (then no more submits), else nil.
    mutating func unbind(now: ContinuousClock.Instant) -> [UInt8]? {
        guard phase == .bound else { return nil }
        phase = .unbinding
        return SMPPPDU(.unbind, sequence: track(.unbind, now: now)).encoded()
    }

    /// Ends the session; returns the parts written without a response, in the order written.
    mutating func close() -> [SMPPPart] {
        var parts: [SMPPPart] = []
        for entry in deadlines[deadlinesHead...] {
            if case .submit(let part)? = pending.removeValue(forKey: entry.sequence) { parts.append(part) }
        }
        phase = .closed
        pending = [:]
        deadlines = []
        deadlinesHead = 0
        submitsInFlight = 0
        return parts
    }

    private mutating func track(_ request: Request, now: ContinuousClock.Instant) -> UInt32 {
        lastSequence = SMPPPDU.sequence(after: lastSequence)
        pending[lastSequence] = request
        deadlines.append((lastSequence, now + limits.responseTimeout))
        return lastSequence
    }

    // MARK: Time

    /// Checks response deadlines and sends `enquire_link` when the link has been quiet.
    mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        if let (sequence, deadline) = oldestPending(), deadline <= now, let request = pending[sequence] {
            return [.close("no response to \(request.name) within \(limits.responseTimeout)")]
        }
        guard phase == .bound, !enquireLinkOutstanding, lastReceived + limits.enquireLinkInterval <= now else {
            return []
        }
        enquireLinkOutstanding = true
        return [.send(SMPPPDU(.enquireLink, sequence: track(.enquireLink, now: now)).encoded())]
    }

    /// When `tick` or `canSubmit` may next change their answer; nil when only a PDU can change them.
    mutating func nextDeadline(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var next = oldestPending()?.deadline
        func consider(_ instant: ContinuousClock.Instant) {
            next = next.map { min($0, instant) } ?? instant
        }
        if phase == .bound, !enquireLinkOutstanding { consider(lastReceived + limits.enquireLinkInterval) }
        if windowSpace > 0 {
            let ready = max(nextSubmitAt, pausedUntil ?? nextSubmitAt)
            if ready > now { consider(ready) }
        }
        return next
    }

    /// The oldest request still waiting for its response (dropping answered ones from the front).
    private mutating func oldestPending() -> (sequence: UInt32, deadline: ContinuousClock.Instant)? {
        while deadlinesHead < deadlines.count, pending[deadlines[deadlinesHead].sequence] == nil {
            deadlinesHead += 1
        }
        if deadlinesHead >= 1_024, deadlinesHead * 2 >= deadlines.count {
            deadlines.removeFirst(deadlinesHead)
            deadlinesHead = 0
        }
        return deadlinesHead < deadlines.count ? deadlines[deadlinesHead] : nil
    }

    // MARK: Receiving

    /// Handles one PDU from the SMSC.
    mutating func received(_ pdu: SMPPPDU, now: ContinuousClock.Instant) -> [Action] {
        lastReceived = now
        if pdu.commandID.isResponse {
            return response(pdu, now: now)
        }
        switch pdu.body {
        case .enquireLink:
            return [.send(SMPPPDU(.enquireLinkResp, sequence: pdu.sequence).encoded())]
        case .unbind:
            phase = .closed
            return [.send(SMPPPDU(.unbindResp, sequence: pdu.sequence).encoded()), .close("unbound by the SMSC")]
        case .deliverSM(let message):
            guard phase == .bound || phase == .unbinding else {
                return [.send(SMPPPDU(.deliverSMResp, sequence: pdu.sequence, status: .incorrectBindStatus).encoded())]
            }
            return [.deliver(message, sequence: pdu.sequence)]
        case .bindTransceiver, .submitSM, .other,
             .bindTransceiverResp, .submitSMResp, .deliverSMResp, .unbindResp, .enquireLinkResp, .genericNack:
            return [.send(SMPPPDU(.genericNack, sequence: pdu.sequence, status: .invalidCommandID).encoded())]
        }
    }

    private mutating func response(_ pdu: SMPPPDU, now: ContinuousClock.Instant) -> [Action] {
        guard let request = pending.removeValue(forKey: pdu.sequence) else {
            if case .genericNack = pdu.body, pdu.sequence == 0 {
                return [.close("generic_nack \(pdu.status) for a PDU the SMSC could not read")]
            }
            return [] // a late response to a request already given up on
        }
        // generic_nack answers any request; its status says why (OK would be nonsense: treat as refused).
        let status = pdu.status == .ok && pdu.commandID == .genericNack ? SMPPCommandStatus.invalidCommandID : pdu.status
        switch request {
        case .bind:
            guard status == .ok, case .bindTransceiverResp(let systemID, _) = pdu.body else {
                phase = .closed
                return [.bindRefused(status)]
            }
            phase = .bound
            return [.bound(systemID: systemID)]
        case .submit(let part):
            submitsInFlight -= 1
            if status == .ok, case .submitSMResp(let messageID) = pdu.body {
                throttleStreak = 0
                return [.accepted(part, messageID: messageID)]
            }
            guard status.isTransient else { return [.refused(part, status == .ok ? .systemError : status)] }
            throttleStreak += 1
            let pause = Self.backoff(limits.throttleBackoff, streak: throttleStreak)
            pausedUntil = max(pausedUntil ?? now, now + pause)
            return [.throttled(part, status, pause: pause)]
        case .enquireLink:
            enquireLinkOutstanding = false
            return []
        case .unbind:
            phase = .closed
            return [.unbound]
        }
    }

    /// `range.lowerBound · 2^(streak − 1)`, at most `range.upperBound`.
    static func backoff(_ range: ClosedRange<Duration>, streak: Int) -> Duration {
        var delay = range.lowerBound
        for _ in 1..<max(1, min(streak, 32)) where delay < range.upperBound { delay *= 2 }
        return min(delay, range.upperBound)
    }
}
