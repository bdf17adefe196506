/// Something that happened to one recipient's delivery, named in the past tense. Events come from the
/// router, the push and SMS providers, the app's receipts, the sender and the timer wheel.
public enum DeliveryEvent: Sendable, Hashable {
    case routed(RoutingDecision)
    /// The push service took the push for this device.
    case pushAccepted(DeviceID)
    /// The push service refused the push for this device (after the dispatcher's own retries).
    case pushRejected(DeviceID, PushRejection)
    /// The app reported the push as received (`Status: Delivered`, or Android's `message_type: DLR`).
    case deliveryAcknowledged(DeviceID)
    /// The app reported the message as displayed (`ReadByRecipient`).
    case readReported(DeviceID)
    case timerFired(TimerKind)
    /// The sender asked for the SMS now (OTP manual fallback): this delivery sends it.
    case manualFallbackRequested
    /// The sender sent the SMS as a new message naming this one in `fallbackFor`: where the policy
    /// terminates the push on a manual fallback, the push is withdrawn and the delivery ends Cancelled;
    /// this delivery sends no SMS.
    case supersededBySMS
    /// The sender cancelled the message (SCG's `{"state":"CANCELED"}`). A delivery that nothing has been
    /// handed to a provider for yet ends Cancelled: not yet routed, or pushing with no push service having
    /// taken the push (the push still in flight is withdrawn, its answer then ignored). One whose push was
    /// taken, or whose SMS was requested, carries on: that message is out.
    case cancelledBySender
    /// The SMSC (or HTTP SMS API) accepted the SMS: every part under its own id.
    case smsSubmitted(SMSSubmission)
    /// The outcome of the whole SMS (a submit refused outright, or a provider reporting per message).
    case smsReportReceived(SMSOutcome)
    /// A delivery report for one part, by the id its submit returned. A failed or expired part ends the
    /// SMS; it is delivered once every part is.
    case smsPartReported(reference: String, SMSOutcome)
    /// The message's own validity ended.
    case expired
}

/// Why a push service refused a push.
public enum PushRejection: String, Sendable, Hashable, Codable {
    /// The token is gone for good (APNs 410 `Unregistered`, `BadDeviceToken`; FCM `UNREGISTERED`).
    case tokenDead
    /// The service kept failing temporarily until the dispatcher gave up.
    case transient
    /// Any other definitive refusal.
    case other
}

/// An SMS a provider accepted: which provider, and the id of each part in part order (never empty).
public struct SMSSubmission: Sendable, Hashable, Codable {
    public let provider: String
    public let references: [String]

    public init(provider: String, references: [String]) {
        precondition(!references.isEmpty, "an SMS has at least one part")
        self.provider = provider
        self.references = references
    }
}

/// What an SMS delivery report says in the end.
public enum SMSOutcome: String, Sendable, Hashable, Codable {
    case delivered
    case failed
    /// The SMSC gave up at the end of the validity period.
    case expired
}

/// The timers a delivery may have running, at most one of each kind.
public enum TimerKind: String, Sendable, Hashable, Codable, CodingKeyRepresentable, CaseIterable {
    /// SMS fallback when no delivery ack arrives in time (policy `fallback.afterNoDeliveryAck`).
    case noDeliveryAck
    /// SMS fallback when no read arrives in time (policy `fallback.afterNoRead`).
    case noRead
    /// The end of the push's life (policy `lifetime`).
    case lifetime
    /// The end of the SMS's validity plus `smsReportWait`, with no final report. (Named for the validity
    /// alone since before the wait existed: the name is stored in snapshots' timer tables.)
    case smsValidity
}
