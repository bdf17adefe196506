/// What `tandem cluster status` shows: the nodes of a cluster and the partitions they hold, as the database sees them
/// (its own clock).
public struct ClusterStatus: Sendable, Hashable {
    public struct Node: Sendable, Hashable {
        public let node: String
        /// Where the other nodes reach it; nil for an owner with no heartbeat row (it left, or never started).
        public let address: String?
        /// How long ago its last heartbeat was; nil with no heartbeat row.
        public let heartbeatAge: Duration?
        /// Whether its heartbeat is younger than the lease lifetime.
        public let live: Bool
        /// Partitions whose lease it holds and that have not expired.
        public let partitions: Int
        /// The soonest of those leases to expire, from now (renewed every round: about the lifetime).
        public let nextExpiry: Duration?
        /// Deliveries not final in those partitions.
        public let inFlight: Int

        public init(node: String, address: String?, heartbeatAge: Duration?, live: Bool, partitions: Int, nextExpiry: Duration?,
                    inFlight: Int) {
            self.node = node
            self.address = address
            self.heartbeatAge = heartbeatAge
            self.live = live
            self.partitions = partitions
            self.nextExpiry = nextExpiry
            self.inFlight = inFlight
        }
    }

    public let databaseTime: Timestamp
    public let partitions: Int
    /// Partitions no live lease covers (never held, released, or expired): their deliveries wait for a claim.
    public let free: Int
    /// Deliveries not final in free partitions.
    public let inFlightUnowned: Int
    public let nodes: [Node]

    public init(databaseTime: Timestamp, partitions: Int, free: Int, inFlightUnowned: Int, nodes: [Node]) {
        self.databaseTime = databaseTime
        self.partitions = partitions
        self.free = free
        self.inFlightUnowned = inFlightUnowned
        self.nodes = nodes
    }
}
