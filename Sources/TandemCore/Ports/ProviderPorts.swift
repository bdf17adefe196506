/// Sends pushes (APNs, FCM, or a simulator). One call covers every target of one delivery.
///
/// Implementations retry transient failures themselves within the policy's lifetime, and return one
/// verdict per target. They should check for task cancellation before sending: the dispatcher cancels a
/// push that a manual fallback terminated while it was still queued.
public protocol PushSender: Sendable {
    func send(_ push: PushRequest) async -> [DeviceID: PushVerdict]
}

public struct PushRequest: Sendable, Hashable {
    public let key: DeliveryKey
    public let msisdn: MSISDN
    public let targets: [PushTarget]
    public let policy: Policy
    public let content: MessageContent

    public init(key: DeliveryKey, msisdn: MSISDN, targets: [PushTarget], policy: Policy, content: MessageContent) {
        self.key = key
        self.msisdn = msisdn
        self.targets = targets
        self.policy = policy
        self.content = content
    }
}

public enum PushVerdict: Sendable, Hashable {
    case accepted
    case rejected(PushRejection)
}

/// Submits SMS (SMPP, an HTTP SMS API, or a simulator).
public protocol SMSSender: Sendable {
    func submit(_ sms: SMSRequest) async -> SMSSubmitResult
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
    /// Accepted by the SMSC under this message id (`submit_sm_resp`).
    case submitted(reference: String)
    /// Refused outright; the delivery fails over SMS.
    case rejected(reason: String)
}

/// The scheduler's time source: the shell passes the system clock, tests a manual one.
public protocol SchedulerClock: Sendable {
    func now() -> Timestamp
    /// Returns at `deadline` or later (never earlier), or throws when the task is cancelled.
    func sleep(until deadline: Timestamp) async throws
}
