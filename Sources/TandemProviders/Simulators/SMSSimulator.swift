import Synchronization
import TandemCore

/// An in-process SMSC for `make run` and tests: accepts every SMS after `latency` under a reference
/// `sim-<n>`, and `reportAfter` later reports it delivered through `report` — except numbers ending in
/// `000`, which fail (so the failure path can be tried). Keeps a log of what it accepted.
public final class SMSSimulator: SMSSender {
    public struct Submitted: Sendable, Hashable {
        public let key: DeliveryKey
        public let msisdn: MSISDN
        public let reference: String
        public let body: String
    }

    /// Where delivery reports go: normally the scheduler (`smsReportReceived`).
    public typealias Report = @Sendable (DeliveryKey, SMSOutcome) async -> Void

    private struct State {
        var next = 1
        var submitted: [Submitted] = []
        var report: Report?
    }

    private let latency: Duration
    private let reportAfter: Duration
    private let state = Mutex(State())

    public init(latency: Duration = .milliseconds(5), reportAfter: Duration = .milliseconds(500)) {
        self.latency = latency
        self.reportAfter = reportAfter
    }

    /// Connects the delivery reports (set once the scheduler exists).
    public func onReport(_ report: @escaping Report) {
        state.withLock { $0.report = report }
    }

    public func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        try? await Task.sleep(for: latency)
        let (reference, report) = state.withLock { state -> (String, Report?) in
            let reference = "sim-\(state.next)"
            state.next += 1
            state.submitted.append(Submitted(key: sms.key, msisdn: sms.msisdn, reference: reference, body: sms.content.body))
            return (reference, state.report)
        }
        if let report {
            let outcome: SMSOutcome = sms.msisdn.e164.hasSuffix("000") ? .failed : .delivered
            let delay = reportAfter
            Task {
                try? await Task.sleep(for: delay)
                await report(sms.key, outcome)
            }
        }
        return .submitted(reference: reference)
    }

    public var log: [Submitted] { state.withLock { $0.submitted } }
}
