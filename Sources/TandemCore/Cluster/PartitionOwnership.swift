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

/// The owner of a partition could not be reached, or answered with an error: nothing is known to have been applied.
public struct ForwardingFailed: Error, Hashable, CustomStringConvertible {
    public let detail: String

    public init(_ detail: String) {
        self.detail = detail
    }

    public var description: String { "the call could not be forwarded to the delivery's node: \(detail)" }
}

/// Whether `error` says that a cluster node cannot serve a delivery right now — not its partition, none held yet, a
/// lease lost mid-commit, an owner out of reach — so that an API answers "try again" (503 with `Retry-After`) instead
/// of an internal error: nothing was applied, and the next attempt (here or on another node) can succeed.
public func isPartitionUnavailable(_ error: any Error) -> Bool {
    error is NotPartitionOwner || error is NoPartitionHeld || error is PartitionLeaseLost || error is ForwardingFailed
}
