extension Configuration {
    /// One node of several `tandem serve` on one PostgreSQL database (docs/cluster.md). Absent: a single server,
    /// which holds every delivery and takes the database's serving lock.
    ///
    /// `"cluster": {"node": "a", "address": "10.0.0.5:8080", "secret": {"env": "TANDEM_CLUSTER_SECRET"}}`, with
    /// `TANDEM_CLUSTER_NODE` overriding `node` (one file for every node).
    public struct Cluster: Sendable, Hashable {
        /// This node's name, unique in the cluster: letters, digits, `.`, `_`, `-` (``NodeID``).
        public var node: NodeID
        /// Where the other nodes reach this one (`host:port`); nil: the listen address.
        public var address: ListenAddress?
        /// The secret every node of the cluster shares, authenticating the calls between nodes (at least 32 bytes).
        public var secret: SecretReference
        /// How often the node renews its leases and rebalances.
        public var renewInterval: Duration = .seconds(2)
        /// How long a lease lasts from its renewal, on the database's clock: a dead node's partitions are taken over
        /// after at most this long.
        public var leaseLifetime: Duration = Cluster.defaultLeaseLifetime
        public static let defaultLeaseLifetime: Duration = .seconds(6)
        /// How long before its lease runs out a node stops acting on a partition (clock rates, a commit under way).
        public var safetyMargin: Duration = .seconds(2)
        /// Partitions claimed at most per round (a starting node takes its share over this many rounds).
        public var maxClaimsPerRound = 64
        /// Partitions released at most per round when another node joins.
        public var maxReleasesPerRound = 32

        public init(node: NodeID, secret: SecretReference) {
            self.node = node
            self.secret = secret
        }
    }
}

extension Configuration.Cluster: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case node, address, secret, renewInterval, leaseLifetime, safetyMargin, maxClaimsPerRound, maxReleasesPerRound
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .node)
        let node: NodeID
        do {
            node = try NodeID(name)
        } catch {
            throw c.fail(.node, "\(error)")
        }
        self.init(node: node, secret: try c.decode(SecretReference.self, forKey: .secret))
        if c.contains(.address) {
            let text = try c.decode(String.self, forKey: .address)
            guard let address = ListenAddress(text) else { throw c.fail(.address, "expected host:port like 10.0.0.5:8080, got \"\(text)\"") }
            self.address = address
        }
        if c.contains(.renewInterval) { renewInterval = try c.decodeDuration(forKey: .renewInterval, in: .milliseconds(100)...(.seconds(60))) }
        if c.contains(.leaseLifetime) { leaseLifetime = try c.decodeDuration(forKey: .leaseLifetime, in: .milliseconds(300)...(.seconds(300))) }
        if c.contains(.safetyMargin) { safetyMargin = try c.decodeDuration(forKey: .safetyMargin, in: .milliseconds(50)...(.seconds(120))) }
        if c.contains(.maxClaimsPerRound) { maxClaimsPerRound = try c.decode(Int.self, forKey: .maxClaimsPerRound, in: 1...4_096) }
        if c.contains(.maxReleasesPerRound) { maxReleasesPerRound = try c.decode(Int.self, forKey: .maxReleasesPerRound, in: 1...4_096) }
        // A lease must survive from one renewal to the next with its margin to spare.
        guard renewInterval + safetyMargin < leaseLifetime else {
            throw c.fail(.leaseLifetime, "must be longer than renewInterval + safetyMargin (\(DurationText.format(renewInterval)) + \(DurationText.format(safetyMargin))), or leases lapse between renewals")
        }
    }
}
