import TandemCore
import TandemPostgres

/// `tandem cluster status`: the nodes of a cluster on the configuration's PostgreSQL database, the partitions each
/// holds, when their leases next expire and the deliveries in flight in them (docs/cluster.md).
struct ClusterCommand {
    static let usage = """
        usage: tandem cluster status [--config PATH]

        status   Lists the nodes sharing the configuration's PostgreSQL database (database.url): each node's address,
                 how long ago it last renewed, whether it counts as live, the partitions (of 256) it holds, how soon
                 the first of its leases expires, and its deliveries not final. Partitions no live node holds are
                 counted as free, with the deliveries waiting in them (a node takes them over in its next round).
                 Read from the database, so it works while nodes are down. A live node renews every renewInterval; a
                 lease expiring in much less than leaseLifetime means its node is late.

        """

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: ["config"], usage: Self.usage) else { return }
        guard parsed.positional == ["status"] else { throw CommandFailure(.usage, Self.usage) }
        let path = ConfigurationLoader.path(option: parsed.option("config"), environment: environment)
        let configuration = try ConfigurationLoader.configuration(at: path, environment: environment)
        guard configuration.database.url != nil else {
            throw CommandFailure(.usage, "an SQLite database serves one node: a cluster needs PostgreSQL (database.url)")
        }
        let lifetime = configuration.cluster?.leaseLifetime ?? Configuration.Cluster.defaultLeaseLifetime
        let status = try await StoreOpener.with(configPath: parsed.option("config"), environment: environment) { store throws(CommandFailure) in
            guard let postgres = store as? PGStore else { throw CommandFailure(.usage, "not a PostgreSQL database") }
            do {
                return try await postgres.clusterStatus(liveWithin: lifetime)
            } catch {
                throw CommandFailure(.failure, "cannot read the cluster's state: \(error)")
            }
        }
        ProcessIO.writeOutput(Self.render(status))
    }

    /// The status as a table, one node per line.
    static func render(_ status: ClusterStatus) -> String {
        let live = status.nodes.filter(\.live).count
        var text = "cluster: \(live) live node\(live == 1 ? "" : "s"), \(status.partitions) partitions, \(status.free) free"
        text += status.free > 0 ? " (\(status.inFlightUnowned) deliveries in flight waiting for an owner)\n" : "\n"
        let header = ["node", "address", "renewed", "live", "partitions", "next expiry", "in flight"]
        var rows = [header]
        for node in status.nodes {
            rows.append([node.node, node.address ?? "-", node.heartbeatAge.map { DurationText.format($0) + " ago" } ?? "-",
                         node.live ? "yes" : "no", String(node.partitions), node.nextExpiry.map(DurationText.format) ?? "-",
                         String(node.inFlight)])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            text += row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
        }
        return text
    }
}
