/// A message's status as the device API shows it to apps (spec, "Get messages"). The wire strings live here
/// only; parsing (``WireNamed``) folds case and trims spaces.
///
/// - `cancelled`: the platform cancelled the message; it is not sent;
/// - `sent`: the platform did not cancel the message and will try to send it;
/// - `rejected`: the carrier or cloud rejected the message;
/// - `accepted`: the carrier or cloud accepted the message;
/// - `failed`: the carrier or cloud failed to deliver the message;
/// - `delivered`: the message has been delivered on the device.
///
/// Unlike ``DeliveryStatus`` there is no `Read`: the spec's app-facing list stops at `Delivered`, and a
/// message that was read was delivered (see ``init(_:)``).
public enum AppMessageStatus: String, Sendable, Hashable, WireNamed {
    case cancelled = "Cancelled"
    case sent = "Sent"
    case rejected = "Rejected"
    case accepted = "Accepted"
    case failed = "Failed"
    case delivered = "Delivered"

    /// The app-facing status of an engine delivery status: `Read` shows as `Delivered`, the rest by name.
    ///
    /// A store that pushes filters down must map its status column the same way (for example
    /// `CASE status WHEN 'Read' THEN 'Delivered' ELSE status END`), or SQL and in-memory results differ.
    public init(_ status: DeliveryStatus) {
        switch status {
        case .accepted: self = .accepted
        case .rejected: self = .rejected
        case .sent: self = .sent
        case .delivered: self = .delivered
        case .read: self = .delivered
        case .failed: self = .failed
        case .cancelled: self = .cancelled
        }
    }
}
