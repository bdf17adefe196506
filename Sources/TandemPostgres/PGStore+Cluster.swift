import TandemCore

extension PGStore {
    /// The cluster as the database sees it now: every node with a heartbeat or a lease, its partitions, its leases'
    /// next expiry and its deliveries in flight (one scan of the in-flight deliveries, through their index).
    /// `liveWithin`: a heartbeat younger than this counts as live (the lease lifetime).
    public func clusterStatus(liveWithin: Duration) async throws(PGError) -> ClusterStatus {
        let window = String(liveWithin.milliseconds)
        return try await read { db throws(PGError) -> ClusterStatus in
            let settings = try db.execute("SELECT (extract(epoch FROM now()) * 1000)::bigint, partitions FROM cluster_settings")
            guard let row = settings.rows.first, let now = row[0].flatMap({ Int64($0) }), let partitions = row[1].flatMap({ Int($0) })
            else { throw .client("cluster_settings has no row: is the schema older than version 3?") }
            let rows = try db.execute("""
                WITH held AS (
                    SELECT owner, count(*) AS partitions,
                           (min(extract(epoch FROM expires_at - now())) * 1000)::bigint AS next_expiry_ms
                    FROM partition_leases WHERE owner IS NOT NULL AND expires_at > now() GROUP BY owner),
                flight AS (
                    SELECT l.owner, count(*) AS deliveries
                    FROM deliveries d JOIN partition_leases l ON l.partition = d.id % 256
                    WHERE NOT d.final AND l.expires_at > now() AND l.owner IS NOT NULL GROUP BY l.owner)
                SELECT coalesce(n.node, h.owner), n.address,
                       (extract(epoch FROM now() - n.heartbeat_at) * 1000)::bigint,
                       coalesce(n.heartbeat_at > now() - make_interval(secs => $1::bigint / 1000.0), false),
                       coalesce(h.partitions, 0), h.next_expiry_ms, coalesce(f.deliveries, 0)
                FROM cluster_nodes n FULL JOIN held h ON h.owner = n.node LEFT JOIN flight f ON f.owner = coalesce(n.node, h.owner)
                ORDER BY 1
                """, [window]).rows
            let nodes = rows.map { row in
                ClusterStatus.Node(node: row[0] ?? "", address: row[1], heartbeatAge: row[2].flatMap { Int64($0) }.map { .milliseconds($0) },
                                   live: row[3] == "t", partitions: Int(row[4] ?? "") ?? 0,
                                   nextExpiry: row[5].flatMap { Int64($0) }.map { .milliseconds($0) }, inFlight: Int(row[6] ?? "") ?? 0)
            }
            let unowned = try db.execute("""
                SELECT count(*) FROM deliveries d JOIN partition_leases l ON l.partition = d.id % 256
                WHERE NOT d.final AND (l.owner IS NULL OR l.expires_at <= now())
                """).scalar.flatMap { Int($0) } ?? 0
            let held = nodes.reduce(0) { $0 + $1.partitions }
            return ClusterStatus(databaseTime: Timestamp(milliseconds: now), partitions: partitions, free: partitions - held,
                                 inFlightUnowned: unowned, nodes: nodes)
        }
    }
}
