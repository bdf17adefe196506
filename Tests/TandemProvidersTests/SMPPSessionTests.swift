import Testing
import TandemCore
@testable import TandemProviders

/// The per-connection state machine, one event per line, with time passed in (no sockets, no sleeping).
@Suite("SMPP session state machine")
struct SMPPSessionTests {
    private let start = ContinuousClock.now
    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    private func limits(window: Int = 2, interval: Duration? = nil) -> SMPPSession.Limits {
        SMPPSession.Limits(window: window, submitInterval: interval, enquireLinkInterval: .seconds(30),
                           responseTimeout: .seconds(10), throttleBackoff: .milliseconds(100) ... .milliseconds(250))
    }

    private func part(_ index: Int, of submission: SMPPSubmission) -> SMPPPart {
        SMPPPart(submission: submission, index: index, body: [UInt8(index)])
    }

    /// A session past its bind (sequence 1).
    private func bound(_ limits: SMPPSession.Limits) -> SMPPSession {
        var session = SMPPSession(limits: limits, now: at(0))
        _ = session.bind(SMPPBindRequest(systemID: "t", password: "p", systemType: ""), now: at(0))
        _ = session.received(SMPPPDU(.bindTransceiverResp(systemID: "SMSC", tlvs: []), sequence: 1), now: at(1))
        return session
    }

    private func submit(_ part: SMPPPart, _ session: inout SMPPSession, at time: ContinuousClock.Instant) throws -> UInt32 {
        var writer = SMPPWireWriter()
        session.submit(part, now: time, into: &writer)
        return try SMPPPDU.header(writer.bytes[...]).sequence
    }

    @Test("bind: OK binds; an error status is a refusal naming it")
    func bind() {
        var session = SMPPSession(limits: limits(), now: at(0))
        let bytes = session.bind(SMPPBindRequest(systemID: "t", password: "p", systemType: ""), now: at(0))
        #expect(bytes[4..<8] == [0, 0, 0, 9])
        #expect(session.phase == .binding && !session.canSubmit(now: at(0)))
        let refused = session.received(SMPPPDU(.bindTransceiverResp(systemID: "", tlvs: []), sequence: 1,
                                               status: .invalidPassword), now: at(1))
        guard case .bindRefused(.invalidPassword)? = refused.first else { Issue.record("\(refused)"); return }
        #expect(session.phase == .closed)
        #expect(bound(limits()).phase == .bound)
    }

    @Test("the window caps submits in flight; each response frees a place")
    func window() throws {
        var session = bound(limits(window: 2))
        let submission = SMPPSubmission(partCount: 3, deadline: at(60_000))
        #expect(session.canSubmit(now: at(2)))
        let first = try submit(part(0, of: submission), &session, at: at(2))
        _ = try submit(part(1, of: submission), &session, at: at(2))
        #expect(!session.canSubmit(now: at(2)) && session.windowSpace == 0 && session.submitsInFlight == 2)
        let actions = session.received(SMPPPDU(.submitSMResp(messageID: "m1"), sequence: first), now: at(3))
        guard case .accepted(let accepted, "m1")? = actions.first else { Issue.record("\(actions)"); return }
        #expect(accepted.index == 0 && accepted.writes == 1)
        #expect(session.canSubmit(now: at(3)) && session.submitsInFlight == 1)
        #expect(session.maxSubmitsInFlight == 2)
    }

    @Test("ESME_RTHROTTLED hands the part back and pauses submits, doubling per streak, reset by an OK")
    func throttled() throws {
        var session = bound(limits(window: 5))
        let submission = SMPPSubmission(partCount: 3, deadline: at(60_000))
        let a = try submit(part(0, of: submission), &session, at: at(10))
        let b = try submit(part(1, of: submission), &session, at: at(10))
        let first = session.received(SMPPPDU(.submitSMResp(messageID: ""), sequence: a, status: .throttled), now: at(20))
        guard case .throttled(let back, .throttled, let pause)? = first.first else { Issue.record("\(first)"); return }
        #expect(back.index == 0 && pause == .milliseconds(100))
        #expect(!session.canSubmit(now: at(119)) && session.canSubmit(now: at(120)))
        #expect(session.nextDeadline(now: at(20)) == at(120))
        let second = session.received(SMPPPDU(.submitSMResp(messageID: ""), sequence: b, status: .messageQueueFull),
                                      now: at(30))
        guard case .throttled(_, .messageQueueFull, let longer)? = second.first else { Issue.record("\(second)"); return }
        #expect(longer == .milliseconds(200))
        #expect(SMPPSession.backoff(.milliseconds(100) ... .milliseconds(250), streak: 3) == .milliseconds(250))
        let c = try submit(part(2, of: submission), &session, at: at(300))
        _ = session.received(SMPPPDU(.submitSMResp(messageID: "ok"), sequence: c), now: at(301))
        let d = try submit(part(0, of: submission), &session, at: at(302))
        let third = session.received(SMPPPDU(.submitSMResp(messageID: ""), sequence: d, status: .throttled), now: at(303))
        guard case .throttled(_, _, let reset)? = third.first else { Issue.record("\(third)"); return }
        #expect(reset == .milliseconds(100))
    }

    @Test("a permanent error status refuses the part; generic_nack counts as a refusal too")
    func refused() throws {
        var session = bound(limits())
        let submission = SMPPSubmission(partCount: 2, deadline: at(60_000))
        let a = try submit(part(0, of: submission), &session, at: at(2))
        let b = try submit(part(1, of: submission), &session, at: at(2))
        let bad = session.received(SMPPPDU(.submitSMResp(messageID: ""), sequence: a, status: .invalidDestinationAddress),
                                   now: at(3))
        guard case .refused(_, .invalidDestinationAddress)? = bad.first else { Issue.record("\(bad)"); return }
        let nack = session.received(SMPPPDU(.genericNack, sequence: b, status: .invalidCommandLength), now: at(3))
        guard case .refused(_, .invalidCommandLength)? = nack.first else { Issue.record("\(nack)"); return }
    }

    @Test("submitsPerSecond spaces submits; a few milliseconds of lateness are made up")
    func rate() throws {
        var session = bound(limits(window: 100, interval: .milliseconds(100)))
        let submission = SMPPSubmission(partCount: 4, deadline: at(60_000))
        _ = try submit(part(0, of: submission), &session, at: at(0))
        #expect(!session.canSubmit(now: at(99)) && session.canSubmit(now: at(100)))
        #expect(session.nextDeadline(now: at(50)) == at(100))
        _ = try submit(part(1, of: submission), &session, at: at(103)) // woke 3 ms late
        #expect(session.canSubmit(now: at(200)))                    // the next slot is still at 200
        _ = try submit(part(2, of: submission), &session, at: at(200))
        _ = try submit(part(3, of: submission), &session, at: at(5_000)) // after a quiet spell, no burst
        #expect(!session.canSubmit(now: at(5_001)))
    }

    @Test("enquire_link after a quiet interval; any request unanswered for responseTimeout closes")
    func timers() {
        var session = bound(limits())
        #expect(session.tick(now: at(29_000)).isEmpty)
        #expect(session.nextDeadline(now: at(29_000)) == at(30_001))
        let ping = session.tick(now: at(30_001))
        guard case .send(let bytes)? = ping.first else { Issue.record("\(ping)"); return }
        #expect(bytes[4..<8] == [0, 0, 0, 0x15])
        #expect(session.tick(now: at(30_002)).isEmpty) // one at a time
        let dead = session.tick(now: at(40_001))
        guard case .close(let reason)? = dead.first else { Issue.record("\(dead)"); return }
        #expect(reason.contains("enquire_link"))
    }

    @Test("the SMSC's enquire_link and unbind are answered; unknown requests get generic_nack")
    func answers() {
        var session = bound(limits())
        let ping = session.received(SMPPPDU(.enquireLink, sequence: 77), now: at(5))
        guard case .send(let pong)? = ping.first else { Issue.record("\(ping)"); return }
        #expect(pong == SMPPPDU(.enquireLinkResp, sequence: 77).encoded())
        let unknown = session.received(SMPPPDU(.other(SMPPCommandID(rawValue: 0x103), []), sequence: 78), now: at(6))
        guard case .send(let nack)? = unknown.first else { Issue.record("\(unknown)"); return }
        #expect(nack == SMPPPDU(.genericNack, sequence: 78, status: .invalidCommandID).encoded())
        let unbind = session.received(SMPPPDU(.unbind, sequence: 79), now: at(7))
        guard unbind.count == 2, case .send(let resp) = unbind[0], case .close = unbind[1] else {
            Issue.record("\(unbind)")
            return
        }
        #expect(resp == SMPPPDU(.unbindResp, sequence: 79).encoded())
    }

    @Test("close hands back exactly the parts without a response, in the order written")
    func closeHandsBack() throws {
        var session = bound(limits(window: 5))
        let submission = SMPPSubmission(partCount: 4, deadline: at(60_000))
        let sequences = try (0..<4).map { try submit(part($0, of: submission), &session, at: at(2)) }
        _ = session.received(SMPPPDU(.submitSMResp(messageID: "b"), sequence: sequences[1]), now: at(3))
        _ = session.received(SMPPPDU(.submitSMResp(messageID: "d"), sequence: sequences[3]), now: at(3))
        #expect(session.close().map(\.index) == [0, 2])
        #expect(session.phase == .closed && session.windowSpace == 0)
    }

    @Test("our unbind: no more submits; unbind_resp ends the session")
    func unbind() {
        var session = bound(limits())
        let bytes = session.unbind(now: at(5))
        #expect(bytes.map { Array($0[4..<8]) } == [0, 0, 0, 6])
        #expect(!session.canSubmit(now: at(5)))
        let done = session.received(SMPPPDU(.unbindResp, sequence: 2), now: at(6))
        guard case .unbound? = done.first else { Issue.record("\(done)"); return }
        #expect(session.unbind(now: at(7)) == nil)
    }

    @Test("the outbox: FIFO, handed-back parts first, finished and expired submissions skipped")
    func outbox() {
        var outbox = SMPPOutbox()
        let open = SMPPSubmission(partCount: 3, deadline: at(1_000))
        let late = SMPPSubmission(partCount: 1, deadline: at(10))
        let gone = SMPPSubmission(partCount: 1, deadline: at(1_000))
        #expect(outbox.enqueue([part(0, of: open), part(0, of: late), part(0, of: gone), part(1, of: open)]).isEmpty)
        gone.reject("cancelled")
        var expired: [SMPPSubmission] = []
        #expect(outbox.next(for: 0, now: at(20), expired: &expired)?.index == 0)
        #expect(outbox.handBack([part(2, of: open)]).isEmpty)
        #expect(outbox.next(for: 0, now: at(20), expired: &expired)?.index == 2)
        #expect(outbox.next(for: 0, now: at(20), expired: &expired)?.index == 1)
        #expect(expired.count == 1 && expired[0] === late)
        #expect(outbox.next(for: 0, now: at(20), expired: &expired) == nil)
        #expect(outbox.enqueue([part(0, of: open)]) == [0]) // bind 0 went idle: wake it
        #expect(outbox.expire(now: at(2_000)).count == 1 && outbox.count == 0)
    }
}
