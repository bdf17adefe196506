import Foundation
import TandemCore

/// PostgreSQL as a ``TandemDatabase``: the lifecycle members here, every port in its own file.
extension PGStore: TandemDatabase {
    /// `postgresql` and the connection string with its password left out.
    public var backend: DatabaseBackendName {
        DatabaseBackendName(kind: "postgresql", location: Self.withoutPassword(conninfo))
    }

    /// The scheduler's store (a new adapter on each access: take it once).
    public var deliveries: any DeliveryStore { PGDeliveryStore(store: self) }

    /// The status-report outbox (a new adapter on each access: take it once).
    public var outbox: any OutboxStore { PGOutbox(store: self) }

    /// Whether the server answered the heartbeat (`SELECT 1` through the reader pool, every second) within the
    /// last three seconds. No I/O.
    public func isReachable() -> Bool { heartbeat.isReachable }

    /// The applied schema version (`tandem_schema`).
    public func schemaVersion() async throws(PGError) -> Int {
        try await read { db throws(PGError) in
            Int(try db.execute("SELECT coalesce(max(version), 0) FROM tandem_schema").scalar ?? "") ?? 0
        }
    }

    /// Moves the deliveries' key sequence past the greatest key stored, if it is not already: what a single server
    /// does before its first delivery, so that its unpartitioned keys (the sequence's values) never meet a key that
    /// nodes of a cluster made before it (a sequence value times 256 plus a partition; see docs/cluster.md).
    public func advanceDeliveryKeys() async throws(PGError) {
        _ = try await write([PGStatement("""
            SELECT setval(q.s, max(d.id))
            FROM deliveries d, (SELECT pg_get_serial_sequence('deliveries', 'id')::regclass AS s) q
            GROUP BY q.s
            HAVING max(d.id) > coalesce(pg_sequence_last_value(q.s), 0)
            """)])
    }

    /// Status reports queued and neither delivered nor given up.
    public func outboxBacklog() async throws -> Int {
        try await PGOutbox(store: self).backlog()
    }

    /// A libpq URI (`postgres://user:secret@host/db`) or key/value string (`… password=secret …`) without its
    /// password.
    static func withoutPassword(_ conninfo: String) -> String {
        if conninfo.hasPrefix("postgres://") || conninfo.hasPrefix("postgresql://"),
           var components = URLComponents(string: conninfo) {
            components.password = nil
            components.queryItems = components.queryItems?.filter { $0.name != "password" }
            if components.queryItems?.isEmpty == true { components.queryItems = nil }
            return components.string ?? conninfo
        }
        return conninfo.split(separator: " ").filter { !$0.hasPrefix("password=") }.joined(separator: " ")
    }
}
