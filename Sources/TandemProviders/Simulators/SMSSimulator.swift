import Synchronization
import TandemCore

/// An in-process SMSC for `make run` and tests. Takes each SMS after `latency` under a reference `sim-<n>`
/// and reports it by that reference through the ``SMSReportHandler`` given to ``onReport(_:)`` — the same
/// path as an SMPP or Kannel DLR (`SMSDeliveryReport(provider: "simulator", reference:, outcome:)`).
///
/// What it reports comes from the rules (``Configuration/SimulatedSMS``): the first rule whose suffix ends
/// the number decides — delivered, failed or expired after its delay, never reported, or refused at once —
/// and an SMS no rule matches is reported delivered `reportAfter` later. Out of the box numbers ending in
/// `000` fail. Each SMS and report is logged at info level, in words, with the number masked.
///
/// Reports are delivered in batches by one task (like an SMSC's DLR stream), not a timer per SMS. Before a
/// handler is set, SMS are taken but never reported. Not simulated: parts — one reference and one report
/// per SMS, however long (a real SMSC reports each part). Not guaranteed: reports still due when the
/// simulator is released.
public final class SMSSimulator: BatchSMSSender {
    public struct Submitted: Sendable, Hashable {
        public let key: DeliveryKey
        public let msisdn: MSISDN
        public let reference: String
        public let body: String
        public let outcome: Configuration.SimulatedSMSOutcome
    }

    struct PendingReport: Sendable {
        let report: SMSDeliveryReport
        let msisdn: MSISDN
    }

    private struct State {
        var next = 1
        /// The latest `kept` submissions; a ring once full, `oldest` its start.
        var submitted: [Submitted] = []
        var oldest = 0

        mutating func remember(_ submission: Submitted) {
            guard submitted.count == SMSSimulator.kept else {
                submitted.append(submission)
                return
            }
            submitted[oldest] = submission
            oldest = (oldest + 1) % submitted.count
        }

        var inOrder: [Submitted] { Array(submitted[oldest...] + submitted[..<oldest]) }
    }

    private let settings: Configuration.SimulatedSMS
    private let clock: any SchedulerClock
    private let logger: Logger
    private let reports: DueQueue<PendingReport>
    /// Submissions waiting out `latency`: one task wakes them in batches, not a timer per SMS.
    private let answers: DueQueue<CheckedContinuation<Void, Never>>
    private let state = Mutex(State())

    /// How many submissions ``log`` keeps (the oldest are dropped).
    public static let kept = 10_000

    public var providerName: String { "simulator" }

    public init(settings: Configuration.SimulatedSMS = Configuration.SimulatedSMS(),
                clock: any SchedulerClock = SimulatorClock(), logger: Logger = .discarding) {
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.reports = DueQueue(clock: clock)
        self.answers = DueQueue(clock: clock)
        answers.start { due in
            for submission in due { submission.resume() }
        }
    }

    /// Starts delivering reports to `handler` (once the scheduler exists).
    public func onReport(_ handler: @escaping SMSReportHandler) {
        let logger = logger
        reports.start { batch in
            for pending in batch where logger.minimumLevel <= .info {
                logger.info("simulated SMS delivery report: \(pending.report.outcome.rawValue)",
                            ["reference": .string(pending.report.reference), "msisdn": .msisdn(pending.msisdn),
                             "outcome": .string(pending.report.outcome.rawValue)])
            }
            do {
                try await handler(batch.map(\.report))
            } catch {
                logger.error("simulated SMS reports not recorded", ["count": .int(Int64(batch.count)), "error": .string("\(error)")])
            }
        }
    }

    public func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        await waitOutLatency()
        return take(sms)
    }

    /// Several SMS answered together after one `latency`, in order.
    public func submit(batch: [SMSRequest]) async -> [SMSSubmitResult] {
        guard !batch.isEmpty else { return [] }
        await waitOutLatency()
        return batch.map(take)
    }

    private func waitOutLatency() async {
        if settings.latency > .zero {
            await withCheckedContinuation { answers.schedule($0, at: clock.now() + settings.latency) }
        }
    }

    /// Decides an SMS's fate by the rules, numbers it and schedules its report.
    private func take(_ sms: SMSRequest) -> SMSSubmitResult {
        let rule = settings.rules.first { $0.matches(sms.msisdn) }
        let outcome = rule?.outcome ?? .delivered
        let delay = rule?.after ?? settings.reportAfter
        guard outcome != .rejected else {
            logger.info("simulated SMSC refused the SMS; the delivery fails over SMS",
                        ["delivery": .int(sms.key.rawValue), "msisdn": .msisdn(sms.msisdn)])
            return .rejected(reason: "the simulated SMSC refused the number")
        }
        let reference = state.withLock { state -> String in
            let reference = "sim-\(state.next)"
            state.next += 1
            state.remember(Submitted(key: sms.key, msisdn: sms.msisdn, reference: reference, body: sms.content.body,
                                     outcome: outcome))
            return reference
        }
        var reporting = false
        if let reported = outcome.reported {
            let detail = "simulated stat:\(Self.stat(reported))"
            reporting = reports.schedule(PendingReport(report: SMSDeliveryReport(provider: providerName, reference: reference,
                                                                                 outcome: reported, detail: detail),
                                                       msisdn: sms.msisdn),
                                         at: clock.now() + delay)
        }
        narrate(sms, reference: reference, outcome: outcome, delay: delay, reporting: reporting)
        return .submitted(references: [reference])
    }

    /// The latest submissions, oldest first.
    public var log: [Submitted] { state.withLock { $0.inOrder } }

    /// Reports waiting to fall due.
    public var pendingReports: Int { reports.count }

    private func narrate(_ sms: SMSRequest, reference: String, outcome: Configuration.SimulatedSMSOutcome, delay: Duration,
                         reporting: Bool) {
        guard logger.minimumLevel <= .info else { return }
        let next: String
        switch outcome {
        case .delivered, .failed, .expired:
            next = reporting ? "it will be reported \(outcome.rawValue) in \(delay.spoken)"
                : "simulated reports are off here, so it stays unreported"
        case .none, .rejected:
            next = "no report will come, so the SMS validity timer decides"
        }
        let parts = SMSText.segmentation(of: sms.content.body, forceUCS2: sms.content.forceUCS2).parts
        logger.info("simulated SMS submitted to \(sms.msisdn.masked); \(next)",
                    ["delivery": .int(sms.key.rawValue), "reference": .string(reference), "msisdn": .msisdn(sms.msisdn),
                     "parts": .int(Int64(parts)), "outcome": .string(outcome.rawValue)])
    }

    /// The SMPP receipt word for an outcome, for the report's detail.
    private static func stat(_ outcome: SMSOutcome) -> String {
        switch outcome {
        case .delivered: "DELIVRD"
        case .failed: "UNDELIV"
        case .expired: "EXPIRED"
        }
    }
}
