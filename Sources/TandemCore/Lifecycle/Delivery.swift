/// One recipient's delivery as a value-type state machine: events in, actions out.
///
/// ```
/// awaitingRoute ──routed(push)──▶ pushing ──ack/read/lifetime──────────────▶ final
///       │                           │ push failure, fallback timer,
///       │                           │ manual fallback (per policy)
///       ├──routed(sms)──────────────┴──▶ awaitingSMSSubmit ──smsSubmitted──▶ awaitingSMSReport ──report──▶ final
///       │                                                                            └──smsValidity timer──▶ final
///       └──routed(reject)──────────────────────────────────────────────────────────────────────────────▶ final
/// ```
///
/// A submitted SMS waits for its final report until its validity ends plus `smsReportWait` (reports can come
/// after the validity end: the SMSC's own "expired" report, or one Kannel retries after Tandem was down);
/// with none by then it ends Failed as `smsReportMissing`, and a report after that is only logged.
///
/// It never reads a clock (every handler takes `now`) and never does I/O: it returns `DeliveryAction`s.
/// Guarantees, each covered by a test:
/// - exactly one final status, reported once; events after it change nothing but the event log;
/// - at most one SMS per delivery;
/// - a timer that fires when it no longer matters (cancelled, rescheduled, wrong state) is a no-op, so
///   cancelling it in the wheel is only an optimisation;
/// - the first delivery ack or read from any of several devices wins.
/// Not guaranteed here: that actions are carried out (the scheduler and dispatcher do that), or ordering
/// between deliveries.
public struct Delivery: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
        case awaitingRoute
        case pushing
        case awaitingSMSSubmit
        case awaitingSMSReport
        case final
    }

    /// What is known of the push to one device.
    public struct DeviceProgress: Sendable, Hashable, Codable {
        public var accepted = false
        public var acknowledged = false
        public var read = false
        public var rejection: PushRejection?

        public init(accepted: Bool = false, acknowledged: Bool = false, read: Bool = false, rejection: PushRejection? = nil) {
            self.accepted = accepted
            self.acknowledged = acknowledged
            self.read = read
            self.rejection = rejection
        }

        /// A flag that is false may be left out (see `Delivery+Decoding.swift`).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            accepted = try container.decodeIfPresent(Bool.self, forKey: .accepted) ?? false
            acknowledged = try container.decodeIfPresent(Bool.self, forKey: .acknowledged) ?? false
            read = try container.decodeIfPresent(Bool.self, forKey: .read) ?? false
            rejection = try container.decodeIfPresent(PushRejection.self, forKey: .rejection)
        }
    }

    public internal(set) var state: State = .awaitingRoute
    /// The last status recorded (what `GET` shows), not necessarily final.
    public internal(set) var status: DeliveryStatus = .accepted
    /// Set once, when the delivery reaches `final`.
    public internal(set) var resolution: Resolution?
    public internal(set) var rejectReason: RejectReason?
    /// The push, when the router chose one.
    public internal(set) var plan: PushPlan?
    /// The SMS route's policy, when the router chose SMS (a push plan carries its own: not stored twice).
    public internal(set) var routePolicy: Policy?
    public internal(set) var devices = DeviceProgressTable()
    /// Armed timers and their deadlines; the scheduler's wheel mirrors this.
    public internal(set) var timers = TimerDeadlines()
    public internal(set) var smsRequested = false
    /// Why the SMS was requested; set with `smsRequested`.
    public internal(set) var smsCause: SMSCause?
    /// The SMS the provider accepted (its parts' ids), once submitted.
    public internal(set) var sms: SMSSubmission?
    /// The parts reported delivered so far (of a multipart SMS still waiting for the others).
    public internal(set) var smsPartsDelivered: [String]?
    /// True once a manual fallback terminated the push.
    public internal(set) var pushTerminated = false
    /// The SMS's validity (the message's `validity`, or the default): what the provider is told, counted from
    /// the submission.
    public let smsValidity: Duration
    /// How long after the end of `smsValidity` a final report is still waited for (`scheduler.smsReportWait`).
    public let smsReportWait: Duration

    /// `scheduler.smsReportWait`'s default, and the wait of a snapshot that names none (the snapshot writer
    /// leaves it out; snapshots from before the wait existed get it too, and had not armed an SMS timer yet
    /// unless it is in their timer table, which keeps its deadline).
    public static let defaultSMSReportWait: Duration = .seconds(3_600)

    public init(smsValidity: Duration, smsReportWait: Duration = Delivery.defaultSMSReportWait) {
        self.smsValidity = smsValidity
        self.smsReportWait = smsReportWait
    }

    /// The snapshot's keys. `policy` is the SMS route's (snapshots written before it was split from the plan's
    /// have the plan's policy there too; it is read back as the route's, and the plan's stays in force).
    enum CodingKeys: String, CodingKey {
        case state, status, resolution, rejectReason, plan, devices, timers, smsRequested, smsCause, sms
        case smsPartsDelivered, pushTerminated, smsValidity, smsReportWait
        case routePolicy = "policy"
    }

    /// The policy in force: the push plan's, or the SMS route's.
    public var policy: Policy? { plan?.policy ?? routePolicy }

    public var isFinal: Bool { state == .final }

    /// The router chose a push (the message belongs in the app's inbox).
    public var wasPushed: Bool { plan != nil }

    /// The push no longer stands: a manual fallback terminated it, the sender withdrew it (`fallbackFor`),
    /// or its lifetime ended unacknowledged. An OTP in this state is listed to the app as `Cancelled`
    /// with no body.
    public var isPushWithdrawn: Bool {
        pushTerminated || resolution == .withdrawn || resolution == .lifetimeExpired
    }

    /// Whether a manual fallback request would be carried out now, and if not, why.
    public var manualFallbackAvailability: ManualFallbackAvailability {
        switch state {
        case .awaitingRoute: return .notPushed
        case .awaitingSMSSubmit, .awaitingSMSReport: return .smsAlreadyRequested
        case .final: return .alreadyFinal
        case .pushing:
            switch plan?.policy.manualFallback ?? .notAllowed {
            case .notAllowed: return .notAllowedByPolicy
            case .keepPush, .terminatePush: return .available
            }
        }
    }

    var anyAcknowledged: Bool { devices.contains { $0.progress.acknowledged || $0.progress.read } }
    var anyRead: Bool { devices.contains { $0.progress.read } }
    /// The devices whose push was not refused, in DeviceID order.
    var liveDevices: [DeviceID] { devices.filter { $0.progress.rejection == nil }.map(\.device).sorted { $0.text < $1.text } }
}

/// The answer to "may the sender ask for the SMS now?".
public enum ManualFallbackAvailability: String, Sendable, Hashable {
    case available
    /// The policy of this message type does not take manual fallbacks.
    case notAllowedByPolicy
    /// The message went by SMS already, or its SMS was already requested.
    case smsAlreadyRequested
    /// The delivery already has its final status.
    case alreadyFinal
    /// The message was never pushed.
    case notPushed
}
