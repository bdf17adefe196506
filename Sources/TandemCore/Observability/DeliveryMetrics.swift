/// The counters and histograms that describe deliveries (`docs/metrics.md`), updated where things happen:
/// the intake (accepted recipients), the scheduler (starts, ends, fallbacks, receipts, SMS reports), the
/// dispatcher (push verdicts, SMS submissions), the outbox relay (status reports) and the device API (PIN
/// SMS). Each update is one lock of one family; the scheduler updates per committed batch.
///
/// ``discarding`` registers nowhere: for components built without a registry (tests, tools).
public final class DeliveryMetrics: Sendable {
    let acceptedRecipientsFamily: CounterFamily
    let startedFamily: CounterFamily
    let finishedFamily: CounterFamily
    let fallbacksFamily: CounterFamily
    let pushesFamily: CounterFamily
    let smsFamily: CounterFamily
    let receiptsFamily: CounterFamily
    let pinSMSSentFamily: CounterFamily
    let pinsVerifiedFamily: CounterFamily
    let statusReportsFamily: CounterFamily
    let durationFamily: HistogramFamily

    // Series whose label values are closed sets, resolved once: the scheduler and the dispatcher count
    // several times per delivery, and a handle hashes nothing (a series still shows only once counted).
    private let acceptedByAPI: [(api: String, counter: Counter)]  // the APIs Tandem has; any other is looked up
    private let started: [Counter]             // by Channel
    private let finishedSeries: [[Counter]]    // by Channel, then DeliveryStatus in `statuses` order
    private let durations: [Histogram]         // by Channel
    private let fallbacks: [(SMSCause, Counter)]
    private let pushes: [[Counter]]            // by provider (apns, fcm, none), then outcome
    private let sms: [Counter]                 // submitted, rejected, delivered, failed, expired
    private let receipts: [Counter]            // delivered, read
    private let statusReports: [Counter]       // sent, retried, given up

    private enum Channel: Int, CaseIterable {
        case none, push, sms
        var label: String {
            switch self {
            case .none: "none"
            case .push: "push"
            case .sms: "sms"
            }
        }
    }

    private static let statuses: [DeliveryStatus] = [.accepted, .rejected, .sent, .delivered, .read, .failed, .cancelled]
    private static let causes: [SMSCause] = [.noAppKey, .pushNotAllowed, .noPushableDevice, .notificationsDisabled,
                                             .pushFailed, .noDeliveryAck, .noRead, .manual]
    private static let providers = ["apns", "fcm", "none"]
    private static let pushOutcomes = ["accepted", "invalid_token", "error", "rejected"]

    public init(registry: MetricsRegistry) {
        acceptedRecipientsFamily = registry.counter("tandem_messages_accepted_total",
                                              help: "Recipients accepted (deliveries requested), by the API they came through.",
                                              labels: ["api"])
        startedFamily = registry.counter("tandem_deliveries_started_total",
                                   help: "Deliveries started, by their first channel (none: rejected or expired at the start).",
                                   labels: ["channel"])
        finishedFamily = registry.counter("tandem_deliveries_finished_total",
                                    help: "Deliveries that reached their final status, by the channel they ended on and that status.",
                                    labels: ["channel", "status"])
        fallbacksFamily = registry.counter("tandem_fallbacks_total", help: "SMS fallbacks from an attempted push, by cause.",
                                     labels: ["cause"])
        pushesFamily = registry.counter("tandem_pushes_total", help: "Push verdicts per device, by provider and outcome.",
                                  labels: ["provider", "outcome"])
        smsFamily = registry.counter("tandem_sms_total",
                               help: "SMS submissions (submitted, rejected) and delivery reports per SMS part (delivered, failed, expired).",
                               labels: ["outcome"])
        receiptsFamily = registry.counter("tandem_receipts_total", help: "Receipts recorded from apps, by kind.", labels: ["kind"])
        pinSMSSentFamily = registry.counter("tandem_pin_sms_sent_total", help: "PIN SMS handed to the PIN provider.")
        pinsVerifiedFamily = registry.counter("tandem_pin_verified_total", help: "Installs verified by a correct PIN.")
        statusReportsFamily = registry.counter("tandem_status_reports_total",
                                         help: "Status-report deliveries to senders' webhooks: sent, retried (a failed attempt to try again), given up.",
                                         labels: ["outcome"])
        durationFamily = registry.histogram("tandem_delivery_duration_seconds",
                                      help: "Time from acceptance to the final status, by the channel the delivery ended on.",
                                      labels: ["channel"], buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 300, 1_800, 3_600, 86_400])

        acceptedByAPI = ["cm", "scg", "mymsp", "bwmi", "cospace"].map { [acceptedRecipientsFamily] in
            ($0, acceptedRecipientsFamily.series([$0]))
        }
        let channels = Channel.allCases
        started = channels.map { [startedFamily] in startedFamily.series([$0.label]) }
        finishedSeries = channels.map { [finishedFamily] channel in
            Self.statuses.map { finishedFamily.series([channel.label, $0.wireName]) }
        }
        durations = channels.map { [durationFamily] in durationFamily.series([$0.label]) }
        fallbacks = Self.causes.map { [fallbacksFamily] in ($0, fallbacksFamily.series([$0.rawValue])) }
        pushes = Self.providers.map { [pushesFamily] provider in Self.pushOutcomes.map { pushesFamily.series([provider, $0]) } }
        sms = ["submitted", "rejected", SMSOutcome.delivered.rawValue, SMSOutcome.failed.rawValue, SMSOutcome.expired.rawValue]
            .map { [smsFamily] in smsFamily.series([$0]) }
        receipts = [ReceiptKind.delivered, .read].map { [receiptsFamily] in receiptsFamily.series([$0.rawValue]) }
        statusReports = [StatusReportOutcome.sent, .retried, .givenUp].map { [statusReportsFamily] in
            statusReportsFamily.series([$0.rawValue])
        }
    }

    public static let discarding = DeliveryMetrics(registry: MetricsRegistry())

    public func accepted(api: String, recipients: Int) {
        guard recipients > 0 else { return }
        if let known = acceptedByAPI.first(where: { $0.api == api }) {
            known.counter.increment(by: Double(recipients))
        } else {
            acceptedRecipientsFamily.increment([api], by: Double(recipients))
        }
    }

    /// A delivery just started (its first event applied); a delivery final at once (rejected, expired) ends too.
    public func started(_ delivery: Delivery) {
        started[Self.channel(delivery).rawValue].increment()
        if delivery.isFinal { finished(delivery, after: .zero) }
    }

    /// A delivery reached its final status; `after`: since its acceptance, when known (not for deliveries
    /// recovered after a restart).
    public func finished(_ delivery: Delivery, after: Duration?) {
        let channel = Self.channel(delivery).rawValue
        // The statuses are a closed list: every one has its series.
        if let status = Self.statuses.firstIndex(of: delivery.status) { finishedSeries[channel][status].increment() }
        if let after { durations[channel].observe(Double(after.milliseconds) / 1_000) }
    }

    public func fellBack(_ cause: SMSCause) {
        if let (_, counter) = fallbacks.first(where: { $0.0 == cause }) { counter.increment() }
    }

    public func pushed(_ platform: Platform, _ verdict: PushVerdict) {
        // Indexes into `providers` and `pushOutcomes`.
        let provider = switch platform {
        case .iOS: 0
        case .android: 1
        case .windowsPhone: 2
        }
        let outcome = switch verdict {
        case .accepted: 0
        case .rejected(.tokenDead): 1
        case .rejected(.transient): 2
        case .rejected(.other): 3
        }
        pushes[provider][outcome].increment()
    }

    public func submitted(_ result: SMSSubmitResult) {
        switch result {
        case .submitted: sms[0].increment()
        case .rejected: sms[1].increment()
        }
    }

    public func reported(_ outcome: SMSOutcome) {
        switch outcome {
        case .delivered: sms[2].increment()
        case .failed: sms[3].increment()
        case .expired: sms[4].increment()
        }
    }

    public enum ReceiptKind: String, Sendable {
        case delivered, read
    }

    /// A receipt an app's report applied: an ack (`delivered`) or a read.
    public func receipt(_ kind: ReceiptKind) {
        receipts[kind == .delivered ? 0 : 1].increment()
    }

    public func pinSMSSent() { pinSMSSentFamily.increment() }
    public func pinVerified() { pinsVerifiedFamily.increment() }

    public enum StatusReportOutcome: String, Sendable {
        case sent, retried, givenUp = "given_up"
    }

    public func statusReport(_ outcome: StatusReportOutcome) {
        switch outcome {
        case .sent: statusReports[0].increment()
        case .retried: statusReports[1].increment()
        case .givenUp: statusReports[2].increment()
        }
    }

    /// The channel a delivery is on (or ended on): `sms` once an SMS was asked for, `push` when pushed, else `none`.
    private static func channel(_ delivery: Delivery) -> Channel {
        if delivery.smsRequested || delivery.sms != nil { return .sms }
        return delivery.wasPushed ? .push : .none
    }
}
