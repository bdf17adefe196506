/// Sends pushes (APNs, FCM, or a simulator). One call covers every target of one delivery.
///
/// Implementations retry transient failures themselves within the policy's lifetime, and return one
/// verdict per target. They should check for task cancellation before sending: the dispatcher cancels a
/// push that a manual fallback terminated while it was still queued.
public protocol PushSender: Sendable {
    func send(_ push: PushRequest) async -> [DeviceID: PushVerdict]
}

/// A ``PushSender`` that takes several pushes in one call and answers them together, in order (one verdict map per
/// push) — for senders whose answers all take about as long (the in-process simulator): a caller with many small
/// pushes at once (BWMI's badge updates) then runs one task per batch instead of one per push.
public protocol BatchPushSender: PushSender {
    func send(batch: [PushRequest]) async -> [[DeviceID: PushVerdict]]
}

public struct PushRequest: Sendable, Hashable {
    public let key: DeliveryKey
    public let recipient: DeliveryRecipient
    public let targets: [PushTarget]
    public let policy: Policy
    public let content: MessageContent

    public init(key: DeliveryKey, recipient: DeliveryRecipient, targets: [PushTarget], policy: Policy, content: MessageContent) {
        self.key = key
        self.recipient = recipient
        self.targets = targets
        self.policy = policy
        self.content = content
    }
}

public enum PushVerdict: Sendable, Hashable {
    case accepted
    case rejected(PushRejection)
}

/// Submits SMS (SMPP, an HTTP SMS API, or a simulator). Implementations keep the provider's name for
/// ``SMSDeliveryReport/provider``.
public protocol SMSSender: Sendable {
    /// Names the provider in the reports it produces and in `provider_refs` (e.g. `smpp`, `kannel`).
    var providerName: String { get }
    func submit(_ sms: SMSRequest) async -> SMSSubmitResult
}

/// An ``SMSSender`` that takes several SMS in one call and answers them together, in order — for senders
/// whose answers all take about as long (the in-process simulator): the dispatcher then runs one task per
/// batch instead of one per SMS, and records the batch's results in one scheduler command.
public protocol BatchSMSSender: SMSSender {
    func submit(batch: [SMSRequest]) async -> [SMSSubmitResult]
}

public struct SMSRequest: Sendable, Hashable {
    public let key: DeliveryKey
    public let msisdn: MSISDN
    public let content: MessageContent
    public let validity: Duration

    public init(key: DeliveryKey, msisdn: MSISDN, content: MessageContent, validity: Duration) {
        self.key = key
        self.msisdn = msisdn
        self.content = content
        self.validity = validity
    }
}

public enum SMSSubmitResult: Sendable, Hashable {
    /// Accepted by the SMSC: one message id per part, in part order (`submit_sm_resp`, or the HTTP API's id);
    /// never empty. Delivery reports name these ids (``SMSDeliveryReport/reference``).
    case submitted(references: [String])
    /// Refused outright; the delivery fails over SMS.
    case rejected(reason: String)
}

/// A delivery report (DLR) from an SMS provider for one submitted part, named by the id its submit
/// returned. The engine matches it to the delivery and combines the parts of a multipart SMS.
public struct SMSDeliveryReport: Sendable, Hashable {
    /// The provider that issued `reference` (message ids are unique per provider only).
    public let provider: String
    public let reference: String
    public let outcome: SMSOutcome
    /// The provider's own words (`stat:UNDELIV err:001`, a Kannel DLR type), for the event log.
    public let detail: String?

    public init(provider: String, reference: String, outcome: SMSOutcome, detail: String? = nil) {
        self.provider = provider
        self.reference = reference
        self.outcome = outcome
        self.detail = detail
    }
}

/// Where SMS providers hand delivery reports, a batch at a time: normally the scheduler's report intake.
/// Returns once the reports are durably recorded; throws when they could not be. A provider that must
/// acknowledge a DLR — SMPP's `deliver_sm_resp`, an HTTP DLR callback's response — does so after this
/// returns, and answers with an error (so the SMSC or Kannel tries again) when it throws.
public typealias SMSReportHandler = @Sendable ([SMSDeliveryReport]) async throws -> Void

/// Where the push providers find an app's credentials when they push for it (normally the store's
/// `apps.push_credentials`). Nil when the app has none.
public protocol PushCredentialsSource: Sendable {
    func pushCredentials(for app: AppKey) async throws -> AppPushCredentials?
}

/// The scheduler's time source: the shell passes the system clock, tests a manual one.
public protocol SchedulerClock: Sendable {
    func now() -> Timestamp
    /// Returns at `deadline` or later (never earlier), or throws when the task is cancelled.
    func sleep(until deadline: Timestamp) async throws
}
