/// Why a delivery went to SMS: the router's reason when SMS was the first channel, or the trigger of a
/// fallback from a push. Shown to senders in status reports and in the message's timeline.
public enum SMSCause: String, Sendable, Hashable, Codable {
    // SMS as the first channel (no push was attempted).
    case noAppKey
    case pushNotAllowed
    case noPushableDevice
    case notificationsDisabled
    // A fallback from a push that was attempted.
    /// Every push target refused the push.
    case pushFailed
    /// No delivery ack within the policy's window.
    case noDeliveryAck
    /// No read within the policy's window.
    case noRead
    /// The sender asked for the SMS (OTP manual fallback).
    case manual

    public init(_ reason: SMSReason) {
        switch reason {
        case .noAppKey: self = .noAppKey
        case .pushNotAllowed: self = .pushNotAllowed
        case .noPushableDevice: self = .noPushableDevice
        case .notificationsDisabled: self = .notificationsDisabled
        }
    }

    /// True when a push was attempted first: the SMS is a fallback.
    public var isFallback: Bool {
        switch self {
        case .noAppKey, .pushNotAllowed, .noPushableDevice, .notificationsDisabled: false
        case .pushFailed, .noDeliveryAck, .noRead, .manual: true
        }
    }
}
