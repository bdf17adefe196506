/// What one node does to the lease rows in one round, as ``LeasePlanner/plan(now:leases:liveNodes:)``
/// decided it. The store executes each entry as a compare-and-set on the observed epoch; any of them may fail
/// because another node acted first, which the next round sees.
///
/// No partition appears in two lists.
public struct LeasePlan: Sendable, Hashable {
    /// Leases this node holds and keeps: extend to the database's `now` plus the lease lifetime, if the row
    /// still has this owner and epoch and has not expired. By partition number.
    public var renew: [LeaseRef]
    /// Free partitions to take: owner this node, epoch plus one, if the row still has the observed epoch and
    /// is still free. In order of preference.
    public var claim: [LeaseRef]
    /// Leases this node gives up: owner nil, if the row still has this owner and epoch. Another node may claim
    /// them as soon as the release is written, so this node must have stopped work on them by then. Highest
    /// partition first.
    public var release: [LeaseRef]

    public init(renew: [LeaseRef] = [], claim: [LeaseRef] = [], release: [LeaseRef] = []) {
        self.renew = renew
        self.claim = claim
        self.release = release
    }

    /// Nothing to do this round.
    public var isEmpty: Bool { renew.isEmpty && claim.isEmpty && release.isEmpty }
}
