import Foundation
import TandemCore

/// The `deliveries` values written for one `Delivery`: its JSON snapshot and the columns derived from
/// it (mapping documented on SQLite's `TandemSchema.scheduler`; PostgreSQL's columns are the same). Built on the
/// caller's task, once per snapshot, so the writer thread only binds values. Shared by the backends (package access).
///
/// Not guaranteed: byte-stable snapshot text for equal deliveries — `sortedKeys` orders object keys,
/// but dictionaries keyed by non-`String` types (`devices`, `timers`) encode as arrays in hash order.
/// Compare decoded values, never snapshot text.
package struct DeliveryColumns: Sendable {
    /// Where the snapshot is in its commit's text (SQLite: `CommitRows.snapshot(_:)`).
    package let snapshot: Range<Int>
    package let state: String
    package let status: String
    package let channel: String?
    package let final: Bool
    package let pushDeadline: Int64?
    package let readDeadline: Int64?
    package let expiresAt: Int64?
    package let pushed: Bool
    package let pushWithdrawn: Bool

    /// `delivery`'s columns, its snapshot at `snapshot` of the commit's text.
    package init(_ delivery: Delivery, snapshot: Range<Int>) {
        self.snapshot = snapshot
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
