import Synchronization
import TandemCore

/// An in-process SMSC for `make run` and tests: accepts every SMS after `latency` under a reference
/// `sim-<n>`, and `reportAfter` later reports it delivered through `report` — except numbers ending in
/// `000`, which fail (so the failure path can be tried). Keeps a log of what it accepted.
///
/// Reports are delivered in batches by one task (like an SMSC's DLR stream), not a timer per SMS.
public final class SMSSimulator: SMSSender {
    public struct Submitted: Sendable, Hashable {
        public let key: DeliveryKey
        public let msisdn: MSISDN
        public let reference: String
        public let body: String
    }

    /// Where delivery reports go: normally the scheduler (`smsReportReceived`), a batch at a time.
    public typealias Report = @Sendable ([(DeliveryKey, SMSOutcome)]) async -> Void

    private struct State {
        var next = 1
        var submitted: [Submitted] = []
        var pending: [(due: ContinuousClock.Instant, key: DeliveryKey, outcome: SMSOutcome)] = []
        var reporter: Task<Void, Never>?
    }

    private let latency: Duration
    private let reportAfter: Duration
    private let state = Mutex(State())

    public var providerName: String { "simulator" }

    public init(latency: Duration = .milliseconds(5), reportAfter: Duration = .milliseconds(500)) {
        self.latency = latency
        self.reportAfter = reportAfter
    }

    deinit { state.withLock { $0.reporter?.cancel() } }

    /// Starts delivering reports to `report` (once the scheduler exists).
    public func onReport(_ report: @escaping Report) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let now = ContinuousClock.now
                let due = self.state.withLock { state -> [(DeliveryKey, SMSOutcome)] in
                    let ready = state.pending.filter { $0.due <= now }
                    state.pending.removeAll { $0.due <= now }
                    return ready.map { ($0.key, $0.outcome) }
                }
                if !due.isEmpty { await report(due) }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        state.withLock { state in
            state.reporter?.cancel()
            state.reporter = task
        }
    }

    public func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        if latency > .zero { try? await Task.sleep(for: latency) }
        let due = ContinuousClock.now + reportAfter
        let outcome: SMSOutcome = sms.msisdn.e164.hasSuffix("000") ? .failed : .delivered
        let reference = state.withLock { state -> String in
            let reference = "sim-\(state.next)"
            state.next += 1
            state.submitted.append(Submitted(key: sms.key, msisdn: sms.msisdn, reference: reference, body: sms.content.body))
            if state.reporter != nil { state.pending.append((due, sms.key, outcome)) }
            return reference
        }
        return .submitted(references: [reference])
    }

    public var log: [Submitted] { state.withLock { $0.submitted } }
}
