/// What one node's lease loop runs against the lease table that every node of a cluster shares
/// (docs/cluster.md; on PostgreSQL `PGPartitionLeases`). Every change is a compare-and-set on the database's
/// clock: a renewal or a release only of a lease the node holds at that epoch, a claim only of a lease that still
/// has the epoch read and is free. Blocking: the loop calls it from a thread of its own.
public protocol PartitionLeaseStatements: AnyObject {
    var node: NodeID { get }
    /// Records that the node is alive and the address other nodes reach it at.
    func heartbeat(address: String) throws
    /// Every lease, the database's time and the live nodes (the node itself among them).
    func view() throws -> PartitionLeaseView
    /// The leases extended; a lease missing from the answer is lost.
    func renew(_ leases: [LeaseRef]) throws -> [LeaseRef]
    /// The leases won, with their new epochs.
    func claim(_ leases: [LeaseRef]) throws -> [LeaseRef]
    /// The leases given up.
    func release(_ leases: [LeaseRef]) throws -> [LeaseRef]
    /// Gives up every lease of the node and its heartbeat (a node shutting down).
    func leave() throws
}

/// What a lease round reads.
public struct PartitionLeaseView: Sendable, Equatable {
    /// The database's time.
    public let now: Timestamp
    public let partitions: Int
    public let leases: [PartitionLease]
    public let liveNodes: Set<NodeID>
    /// Where each live node says it is reached (its heartbeat's address), for calls forwarded to a partition's owner.
    public let addresses: [NodeID: String]

    public init(now: Timestamp, partitions: Int, leases: [PartitionLease], liveNodes: Set<NodeID>, addresses: [NodeID: String] = [:]) {
        self.now = now
        self.partitions = partitions
        self.leases = leases
        self.liveNodes = liveNodes
        self.addresses = addresses
    }
}
