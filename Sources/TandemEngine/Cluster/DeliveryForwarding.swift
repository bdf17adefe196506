import TandemCore

/// A call for a delivery in a partition another node holds, as it travels to that node (docs/cluster.md, "Receipts,
/// reports and requests for a delivery another node owns"). The owner applies it exactly as it would a local one —
/// queued behind whatever its scheduler does next — and answers only after the commit that holds it.
public enum ForwardedCall: Sendable {
    /// Events for deliveries of one partition, applied in order (``Scheduler/record(_:)``): SMS delivery reports, a
    /// sender's cancel or superseding SMS, a receipt recorded through the store's path.
    case events([(DeliveryKey, DeliveryEvent)])
    /// An install's receipt (``Scheduler/recordReceipt(_:for:from:acknowledgement:)``), with the BWMI acknowledgement
    /// that rides with it, if any (its delivery, device and time: the owner writes it and answers its outcome).
    case receipt(key: DeliveryKey, events: [DeliveryEvent], sender: Scheduler.ReceiptSender, acknowledgement: ForwardedAcknowledgement?)
    /// A sender's request for the SMS now (``Scheduler/requestManualFallback(for:)``).
    case manualFallback(DeliveryKey)

    /// The deliveries the call names (one partition's, by construction).
    public var keys: [DeliveryKey] {
        switch self {
        case .events(let events): events.map(\.0)
        case .receipt(let key, _, _, _): [key]
        case .manualFallback(let key): [key]
        }
    }
}

/// A BWMI acknowledgement as it travels with a forwarded receipt.
public struct ForwardedAcknowledgement: Sendable, Hashable {
    public let delivery: DeliveryKey
    public let device: DeviceID
    public let at: Timestamp

    public init(delivery: DeliveryKey, device: DeviceID, at: Timestamp) {
        self.delivery = delivery
        self.device = device
        self.at = at
    }
}

/// The owner's answer to a ``ForwardedCall``, once committed.
public enum ForwardedAnswer: Sendable, Hashable {
    case outcomes([Scheduler.EventOutcome])
    /// The receipt's outcome; with an acknowledgement, what its write found and the device's live count after it.
    case receipt(Scheduler.ReceiptOutcome, acknowledgement: BWMIAcknowledgement?, liveCount: Int?)
    case manualFallback(ManualFallbackAvailability)
}

/// Sends a call to the node that holds a partition, and returns its answer. Throws ``NotPartitionOwner`` when no
/// node holds the partition now, or the node asked no longer does (a takeover under way: the caller's client is told
/// to try again), and ``ForwardingFailed`` when the owner could not be reached or failed.
public protocol DeliveryForwarder: Sendable {
    func forward(_ call: ForwardedCall, partition: Int) async throws -> ForwardedAnswer
}
