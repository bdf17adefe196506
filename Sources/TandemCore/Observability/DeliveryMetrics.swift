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
    }

    public static let discarding = DeliveryMetrics(registry: MetricsRegistry())

    public func accepted(api: String, recipients: Int) {
        guard recipients > 0 else { return }
        acceptedRecipientsFamily.increment([api], by: Double(recipients))
    }

    /// A delivery just started (its first event applied); a delivery final at once (rejected, expired) ends too.
    public func started(_ delivery: Delivery) {
        startedFamily.increment([Self.channel(delivery)])
        if delivery.isFinal { finished(delivery, after: .zero) }
    }

    /// A delivery reached its final status; `after`: since its acceptance, when known (not for deliveries
    /// recovered after a restart).
    public func finished(_ delivery: Delivery, after: Duration?) {
        let channel = Self.channel(delivery)
        finishedFamily.increment([channel, delivery.status.wireName])
        if let after { durationFamily.observe(Double(after.milliseconds) / 1_000, [channel]) }
    }

    public func fellBack(_ cause: SMSCause) {
        fallbacksFamily.increment([cause.rawValue])
    }

    public func pushed(_ platform: Platform, _ verdict: PushVerdict) {
        let provider = switch platform {
        case .iOS: "apns"
        case .android: "fcm"
        case .windowsPhone: "none"
        }
        let outcome = switch verdict {
        case .accepted: "accepted"
        case .rejected(.tokenDead): "invalid_token"
        case .rejected(.transient): "error"
        case .rejected(.other): "rejected"
        }
        pushesFamily.increment([provider, outcome])
    }

    public func submitted(_ result: SMSSubmitResult) {
        switch result {
        case .submitted: smsFamily.increment(["submitted"])
        case .rejected: smsFamily.increment(["rejected"])
        }
    }

    public func reported(_ outcome: SMSOutcome) {
        smsFamily.increment([outcome.rawValue])
    }

    public enum ReceiptKind: String, Sendable {
        case delivered, read
    }

    /// A receipt an app's report applied: an ack (`delivered`) or a read.
    public func receipt(_ kind: ReceiptKind) {
        receiptsFamily.increment([kind.rawValue])
    }

    public func pinSMSSent() { pinSMSSentFamily.increment() }
    public func pinVerified() { pinsVerifiedFamily.increment() }

    public enum StatusReportOutcome: String, Sendable {
        case sent, retried, givenUp = "given_up"
    }

    public func statusReport(_ outcome: StatusReportOutcome) {
        statusReportsFamily.increment([outcome.rawValue])
    }

    /// The channel a delivery is on (or ended on): `sms` once an SMS was asked for, `push` when pushed, else `none`.
    static func channel(_ delivery: Delivery) -> String {
        if delivery.smsRequested || delivery.sms != nil { return "sms" }
        return delivery.wasPushed ? "push" : "none"
    }
}
