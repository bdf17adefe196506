import TandemCore

/// One node's statements on the shared lease tables (`cluster_nodes`, `partition_leases`; schema version 3), on a
/// connection of its own: what the node's lease loop carries out each round after ``LeasePlanner`` planned it
/// (docs/cluster.md). Every change is a compare-and-set on the row the node read, timed by the database's clock
/// (`now()`), so two nodes never both win a partition and no node's clock matters.
///
/// Blocking: each call is one round trip on the calling thread (the lease loop runs on a thread of its own).
/// Not `Sendable`: one loop uses it. Made from a target, it connects again before a call when its connection was
/// lost (the call that found it lost failed; the loop's next round reconnects).
public final class PGPartitionLeases: PartitionLeaseStatements {
    public let node: NodeID
    private var connection: PGConnection
    private let target: PGConnectionTarget?
    private let lifetime: String

    /// `lifetimeMilliseconds`: how long a claim or a renewal holds, and how long a silent node counts as live.
    public init(connection: PGConnection, node: NodeID, lifetimeMilliseconds: Int) {
        self.connection = connection
        self.target = nil
        self.node = node
        self.lifetime = String(lifetimeMilliseconds)
    }

    /// On a connection of its own to `target`, made again whenever it was lost.
    public init(target: PGConnectionTarget, node: NodeID, lifetimeMilliseconds: Int) throws(PGError) {
        self.connection = try PGConnection(target)
        self.target = target
        self.node = node
        self.lifetime = String(lifetimeMilliseconds)
    }

    deinit {
        if target != nil { connection.close() }
    }

    /// The connection, made again first if it was lost and this object has a target.
    private var liveConnection: PGConnection {
        get throws(PGError) {
            if let target, !connection.isUsable {
                connection.close()
                connection = try PGConnection(target)
            }
            return connection
        }
    }

    /// Records that this node is alive and where other nodes reach it (its internal address).
    public func heartbeat(address: String) throws(PGError) {
        try liveConnection.execute("""
            INSERT INTO cluster_nodes (node, address) VALUES ($1, $2)
            ON CONFLICT (node) DO UPDATE SET address = excluded.address, heartbeat_at = now()
            """, [node.description, address])
    }

    /// Every lease, the database's time and the live nodes (this one counts as live whatever its heartbeat says).
    public func view() throws(PGError) -> PartitionLeaseView {
        let settings = try liveConnection.execute("SELECT (extract(epoch FROM now()) * 1000)::bigint, partitions FROM cluster_settings")
        guard let row = settings.rows.first, let now = row[0].flatMap({ Int64($0) }), let partitions = row[1].flatMap({ Int($0) })
        else { throw .client("cluster_settings has no row: is the schema older than version 3?") }
        var live: Set<NodeID> = [node]
        var addresses: [NodeID: String] = [:]
        for row in try liveConnection.execute("""
            SELECT node, address FROM cluster_nodes WHERE heartbeat_at > now() - make_interval(secs => $1::bigint / 1000.0)
            """, [lifetime]).rows {
            if let id = row[0].flatMap({ try? NodeID($0) }) {
                live.insert(id)
                addresses[id] = row[1]
            }
        }
        let leases = try liveConnection.execute("""
            SELECT partition, owner, epoch,
                   CASE WHEN expires_at = '-infinity' THEN 0 ELSE (extract(epoch FROM expires_at) * 1000)::bigint END
            FROM partition_leases ORDER BY partition
            """).rows.compactMap { row -> PartitionLease? in
            guard let partition = row[0].flatMap({ Int($0) }), let epoch = row[2].flatMap({ Int64($0) }),
                  let expires = row[3].flatMap({ Int64($0) }) else { return nil }
            return PartitionLease(partition: partition, owner: row[1].flatMap { try? NodeID($0) }, epoch: epoch,
                                  expiresAt: Timestamp(milliseconds: expires))
        }
        return PartitionLeaseView(now: Timestamp(milliseconds: now), partitions: partitions, leases: leases, liveNodes: live,
                                  addresses: addresses)
    }

    /// Extends each lease this node still holds at the epoch given and that has not expired; answers those extended.
    /// A lease missing from the answer was lost (expired, or taken): the node must stop acting on it.
    public func renew(_ leases: [LeaseRef]) throws(PGError) -> [LeaseRef] {
        try compareAndSet(leases, """
            WITH locked AS (\(Self.lockInOrder("l.owner = $1 AND l.expires_at > now()", keyKept: true)))
            UPDATE partition_leases l SET expires_at = now() + make_interval(secs => $4::bigint / 1000.0)
            FROM locked WHERE l.partition = locked.partition
            RETURNING l.partition, l.epoch
            """)
    }

    /// Claims each partition if it still has the epoch read and is free (no owner, or expired): owner this node,
    /// epoch one more. Answers the partitions won, with their new epochs; another node won the others.
    public func claim(_ leases: [LeaseRef]) throws(PGError) -> [LeaseRef] {
        try compareAndSet(leases, """
            WITH locked AS (\(Self.lockInOrder("(l.owner IS NULL OR l.expires_at <= now())")))
            UPDATE partition_leases l
            SET owner = $1, epoch = l.epoch + 1, expires_at = now() + make_interval(secs => $4::bigint / 1000.0)
            FROM locked WHERE l.partition = locked.partition
            RETURNING l.partition, l.epoch
            """)
    }

    /// Gives up each lease this node holds at the epoch given, so that another node may claim it at once.
    /// The node must have stopped acting on those partitions first.
    public func release(_ leases: [LeaseRef]) throws(PGError) -> [LeaseRef] {
        try compareAndSet(leases, """
            WITH locked AS (\(Self.lockInOrder("l.owner = $1")))
            UPDATE partition_leases l SET owner = NULL, expires_at = now()
            FROM locked WHERE l.partition = locked.partition
            RETURNING l.partition, l.epoch
            """, lifetime: false)
    }

    /// A node shutting down: every lease it holds is released and its heartbeat removed, in one transaction.
    public func leave() throws(PGError) {
        let connection = try liveConnection
        try connection.transaction { () throws(PGError) in
            try connection.execute("""
                WITH locked AS (SELECT partition FROM partition_leases WHERE owner = $1 ORDER BY partition FOR UPDATE)
                UPDATE partition_leases l SET owner = NULL, expires_at = now() FROM locked WHERE l.partition = locked.partition
                """, [node.description])
            try connection.execute("DELETE FROM cluster_nodes WHERE node = $1", [node.description])
        }
    }

    /// The check that fences a commit, run inside that commit's transaction for the partitions its rows belong to:
    /// fails the transaction (SQLSTATE `TD001`, "partition lease lost") unless this node holds every one of them at
    /// the epoch given and none has expired. The rows are locked `FOR KEY SHARE` until the commit ends (the holder is
    /// the rows' key, schema version 5), so a claim or release of one of those partitions waits for the commit (and a
    /// claim then loads what it wrote), a commit after a claim finds another owner, and a renewal never waits for a
    /// commit. Parameters: ``fenceParameters(_:)``.
    public static let fenceSQL = """
        SELECT tandem_expect(count(*), cardinality($2::int[]), '\(leaseLostState)', 'partition lease lost') FROM (
            SELECT 1 FROM partition_leases l JOIN unnest($2::int[], $3::bigint[]) AS f(partition, epoch)
              ON l.partition = f.partition AND l.epoch = f.epoch
            WHERE l.owner = $1 AND l.expires_at > now()
            ORDER BY l.partition
            FOR KEY SHARE OF l
        ) held
        """

    /// The rows of `$2`/`$3` (partitions and epochs) that still have the epoch read and satisfy `condition` (on `l`),
    /// locked in partition order: two nodes' claims and releases, which may cover the same rows, never wait for each
    /// other in a cycle. `keyKept` (a renewal: the holder stays): `FOR NO KEY UPDATE`, which a commit's fence
    /// (`FOR KEY SHARE`) does not block; else `FOR UPDATE`, which waits for the commits under way.
    static func lockInOrder(_ condition: String, keyKept: Bool = false) -> String {
        """
        SELECT l.partition FROM partition_leases l JOIN unnest($2::int[], $3::bigint[]) AS c(partition, epoch)
          ON l.partition = c.partition AND l.epoch = c.epoch
        WHERE \(condition)
        ORDER BY l.partition FOR \(keyKept ? "NO KEY UPDATE" : "UPDATE") OF l
        """
    }

    /// The SQLSTATE of a failed fence.
    public static let leaseLostState = "TD001"

    /// The parameters of ``fenceSQL`` for `leases` (distinct partitions), held by this node.
    public func fenceParameters(_ leases: [LeaseRef]) -> [String?] {
        Self.fenceParameters(CommitFence(node: node, leases: leases))
    }

    /// The parameters of ``fenceSQL`` for `fence`.
    public static func fenceParameters(_ fence: CommitFence) -> [String?] {
        [fence.node.description] + arrays(fence.leases)
    }

    /// `leases` as a PostgreSQL int array of partitions and a bigint array of epochs.
    private static func arrays(_ leases: [LeaseRef]) -> [String?] {
        ["{" + leases.map { String($0.partition) }.joined(separator: ",") + "}",
         "{" + leases.map { String($0.epoch) }.joined(separator: ",") + "}"]
    }

    /// Runs one compare-and-set statement over `leases`: `$1` this node, `$2` and `$3` the partitions and epochs read,
    /// `$4` (when `lifetime`) the lease lifetime in milliseconds. Answers the rows it changed.
    private func compareAndSet(_ leases: [LeaseRef], _ sql: String, lifetime withLifetime: Bool = true) throws(PGError) -> [LeaseRef] {
        guard !leases.isEmpty else { return [] }
        let parameters: [String?] = [node.description] + Self.arrays(leases) + (withLifetime ? [lifetime] : [])
        return try liveConnection.execute(sql, parameters).rows.compactMap { row in
            guard let partition = row[0].flatMap({ Int($0) }), let epoch = row[1].flatMap({ Int64($0) }) else { return nil }
            return LeaseRef(partition: partition, epoch: epoch)
        }.sorted { $0.partition < $1.partition }
    }
}
