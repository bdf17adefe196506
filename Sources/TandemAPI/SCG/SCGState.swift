import TandemCore

/// A message request's state, derived from its recipients' messages:
/// - `TRANSMITTING` while any recipient's message is `ACCEPTED` or `SENT` (queued, in flight, waiting for a
///   delivery ack or report);
/// - `CANCELED` once every message is final and every one was cancelled (by the sender, or withdrawn);
/// - `COMPLETED` once every message is final otherwise.
/// `CANCELED` is also the one state a sender may set (`POST …/message_requests/{id}`).
public enum SCGRequestState: String, Sendable, Hashable, CaseIterable {
    case transmitting = "TRANSMITTING"
    case completed = "COMPLETED"
    case canceled = "CANCELED"

    static func of(_ states: [SCGMessageState]) -> SCGRequestState {
        guard states.allSatisfy(\.isFinal) else { return .transmitting }
        return !states.isEmpty && states.allSatisfy({ $0 == .canceled }) ? .canceled : .completed
    }
}

/// One recipient's message state, from Tandem's delivery:
///
/// | delivery | state |
/// |---|---|
/// | queued (spooled), or not yet taken by any provider | `ACCEPTED` |
/// | a push service took the push, or the SMSC took the SMS | `SENT` |
/// | delivery ack (push) or delivery report (SMS), final or with a read still awaited | `DELIVERED` |
/// | read (push) | `READ` |
/// | rejected (no route), push failed, SMS failed, SMS report missing | `FAILED` |
/// | push lifetime, SMS validity or the message's `expiry_time` ran out | `EXPIRED` |
/// | cancelled by the sender, or withdrawn by a fallback SMS | `CANCELED` |
public enum SCGMessageState: String, Sendable, Hashable, CaseIterable {
    case accepted = "ACCEPTED"
    case sent = "SENT"
    case delivered = "DELIVERED"
    case read = "READ"
    case failed = "FAILED"
    case expired = "EXPIRED"
    case canceled = "CANCELED"

    public var isFinal: Bool {
        switch self {
        case .accepted, .sent: false
        case .delivered, .read, .failed, .expired, .canceled: true
        }
    }

    /// Counted in `sent_count`: it went out (whatever became of it after).
    var wasSent: Bool {
        switch self {
        case .sent, .delivered, .read: true
        case .accepted, .failed, .expired, .canceled: false
        }
    }

    /// The state of a delivery. A delivered push that still waits for its read (Critical) is `DELIVERED`
    /// already, and counts as done for the request's state; a later read makes it `READ`.
    public static func of(_ delivery: Delivery) -> SCGMessageState {
        if let resolution = delivery.resolution { return of(resolution) }
        if delivery.status == .delivered || delivery.status == .read { return .delivered }
        let handedOver = delivery.sms != nil || delivery.devices.contains { $0.progress.accepted }
        return handedOver ? .sent : .accepted
    }

    public static func of(_ resolution: Resolution) -> SCGMessageState {
        switch resolution {
        case .deliveredByPush, .deliveredBySMS: .delivered
        case .readByPush: .read
        case .rejected, .pushFailed, .smsFailed, .smsReportMissing: .failed
        case .lifetimeExpired, .smsExpired, .validityExpired: .expired
        case .withdrawn, .cancelled: .canceled
        }
    }
}
