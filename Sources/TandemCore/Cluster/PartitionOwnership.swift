/// Which partitions this node may act on, and at which epoch (docs/cluster.md): the scheduler asks before it starts
/// a delivery in a partition, applies an event to one, fences a commit or sends for one. On a cluster node it is the
/// lease keeper's view, measured on the node's own monotonic clock; a single node has none and owns everything.
public protocol PartitionOwnership: Sendable {
    var node: NodeID { get }
    var map: PartitionMap { get }
    /// The epoch this node holds `partition` at, if its lease is valid now (with its safety margin); else nil.
    func epoch(of partition: Int) -> Int64?
}

/// An event, receipt or request names a delivery in a partition this node does not hold (or has not finished
/// loading): nothing was applied. The caller forwards it to the partition's owner, or answers "try again".
public struct NotPartitionOwner: Error, Hashable, CustomStringConvertible {
    public let partition: Int

    public init(partition: Int) {
        self.partition = partition
    }

    public var description: String { "this node does not hold partition \(partition)" }
}

/// A node holds no partition it could start a new delivery in (it is starting, or it lost its leases).
public struct NoPartitionHeld: Error, Hashable, CustomStringConvertible {
    public init() {}
    public var description: String { "this node holds no partition yet" }
}
