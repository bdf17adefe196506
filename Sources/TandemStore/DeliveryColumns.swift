import Foundation
import TandemCore

/// The `deliveries` values written for one `Delivery`: its JSON snapshot and the columns derived from
/// it (mapping documented on ``TandemSchema/scheduler``). Built on the caller's task, once per
/// snapshot, so the writer thread only binds values.
///
/// Not guaranteed: byte-stable snapshot text for equal deliveries — `sortedKeys` orders object keys,
/// but dictionaries keyed by non-`String` types (`devices`, `timers`) encode as arrays in hash order.
/// Compare decoded values, never snapshot text.
struct DeliveryColumns: Sendable {
    /// Where the snapshot is in its commit's text (``CommitRows/snapshot(_:)``).
    let snapshot: Range<Int>
    let state: String
    let status: String
    let channel: String?
    let final: Bool
    let pushDeadline: Int64?
    let readDeadline: Int64?
    let expiresAt: Int64?
    let pushed: Bool
    let pushWithdrawn: Bool

    init(_ delivery: Delivery, into rows: CommitRows) throws(StoreError) {
        snapshot = try rows.appendSnapshot(of: delivery)
        state = delivery.state.rawValue
        status = delivery.status.wireName
        channel = delivery.resolution?.channel?.wireName
        final = delivery.isFinal
        pushDeadline = Self.earliest(delivery.timers[.noDeliveryAck], delivery.timers[.noRead])
        readDeadline = delivery.timers[.noRead]?.milliseconds
        expiresAt = Self.earliest(delivery.timers[.lifetime], delivery.timers[.smsValidity])
        pushed = delivery.wasPushed
        pushWithdrawn = delivery.isPushWithdrawn
    }

    private static func earliest(_ first: Timestamp?, _ second: Timestamp?) -> Int64? {
        switch (first, second) {
        case (let first?, let second?): min(first, second).milliseconds
        case (let only?, nil), (nil, let only?): only.milliseconds
        case (nil, nil): nil
        }
    }
}
