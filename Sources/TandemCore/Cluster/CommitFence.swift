/// The partition leases a commit is made under (docs/cluster.md, "Fencing"): the store checks, inside the commit's
/// own transaction, that `node` still holds every one of them at its epoch, and fails the whole commit when it does
/// not. The commit's new deliveries and changed deliveries all belong to these partitions.
public struct CommitFence: Sendable, Hashable {
    public let node: NodeID
    /// Distinct partitions, in partition order.
    public let leases: [LeaseRef]

    public init(node: NodeID, leases: [LeaseRef]) {
        self.node = node
        var seen = Set<Int>()
        self.leases = leases.filter { seen.insert($0.partition).inserted }.sorted { $0.partition < $1.partition }
    }
}

/// A commit's fence failed: the node no longer holds one of the partitions at the epoch it committed under (it
/// expired, or another node claimed it). Nothing of the commit was stored.
public struct PartitionLeaseLost: Error, Hashable, CustomStringConvertible {
    public let detail: String

    public init(_ detail: String) {
        self.detail = detail
    }

    public var description: String { "partition lease lost: \(detail)" }
}
