/// One partition's lease row as a node read it: who holds it, since which claim, and until when.
///
/// `epoch` counts the claims of the partition (a new claim writes `epoch + 1`); renewals and releases keep it.
/// `expiresAt` is on the database's clock, the only clock all nodes share. A released or never-held partition
/// has no owner; its `expiresAt` is then meaningless.
public struct PartitionLease: Sendable, Hashable {
    public let partition: Int
    /// The holder, or nil if the partition was never held or was released.
    public let owner: NodeID?
    public let epoch: Int64
    public let expiresAt: Timestamp

    public init(partition: Int, owner: NodeID?, epoch: Int64, expiresAt: Timestamp) {
        self.partition = partition
        self.owner = owner
        self.epoch = epoch
        self.expiresAt = expiresAt
    }

    /// What a missing row stands for: never held, epoch 0.
    public static func neverHeld(_ partition: Int) -> PartitionLease {
        PartitionLease(partition: partition, owner: nil, epoch: 0, expiresAt: Timestamp(milliseconds: 0))
    }

    /// Claimable at `now`: no owner, or the lease has run out (`expiresAt <= now`, so a lease is never valid at
    /// its expiry instant).
    public func isFree(at now: Timestamp) -> Bool {
        owner == nil || expiresAt <= now
    }

    /// `node` holds a lease that is still valid at `now`.
    public func isHeld(by node: NodeID, at now: Timestamp) -> Bool {
        owner == node && expiresAt > now
    }

    /// The row as observed, for a compare-and-set.
    public var ref: LeaseRef { LeaseRef(partition: partition, epoch: epoch) }
}
