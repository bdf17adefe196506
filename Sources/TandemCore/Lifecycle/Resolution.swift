/// How a delivery ended: its one final status, and the channel and reason behind it.
public enum Resolution: String, Sendable, Hashable, Codable {
    case deliveredByPush
    case readByPush
    case deliveredBySMS
    /// No channel could take the message (see the delivery's `rejectReason`).
    case rejected
    /// Every push target refused the push and there was no SMS to fall back on.
    case pushFailed
    /// The push's lifetime ended without a delivery ack (OTP: no SMS follows).
    case lifetimeExpired
    case smsFailed
    /// The SMSC reported that the SMS's validity ended without delivery.
    case smsExpired
    /// No final report came by the end of the SMS's validity plus `smsReportWait`: the outcome is unknown (the
    /// SMSC's report may have been lost, e.g. a Kannel DLR callback made while Tandem was down and not retried).
    /// Failed, as CM's status model has no "unknown"; the resolution tells it apart from `smsExpired`.
    case smsReportMissing
    /// The message's own validity ended first.
    case validityExpired
    /// The push was withdrawn because the sender sent the SMS as a separate message (`fallbackFor`).
    case withdrawn
    /// The sender cancelled the message before anything was handed to a provider (`cancelledBySender`).
    case cancelled

    public var status: DeliveryStatus {
        switch self {
        case .deliveredByPush, .deliveredBySMS: .delivered
        case .readByPush: .read
        case .rejected: .rejected
        case .withdrawn, .cancelled: .cancelled
        case .pushFailed, .lifetimeExpired, .smsFailed, .smsExpired, .smsReportMissing, .validityExpired: .failed
        }
    }

    /// The channel the outcome came through, if any.
    public var channel: Channel? {
        switch self {
        case .deliveredByPush, .readByPush, .pushFailed, .lifetimeExpired, .withdrawn: .push
        case .deliveredBySMS, .smsFailed, .smsExpired, .smsReportMissing: .sms
        case .rejected, .validityExpired, .cancelled: nil
        }
    }

    /// True for the failures that come from time running out.
    public var isExpiry: Bool {
        switch self {
        case .lifetimeExpired, .smsExpired, .smsReportMissing, .validityExpired: true
        case .deliveredByPush, .readByPush, .deliveredBySMS, .rejected, .pushFailed, .smsFailed, .withdrawn, .cancelled: false
        }
    }
}
