import Foundation

/// The one-server-per-database lock on PostgreSQL: a session-level advisory lock held on a connection of its own
/// for as long as `tandem serve` runs, taken before recovery, so that a second server on the same database never
/// recovers or sends the first one's fallbacks (several nodes on one database is a later step, with partition
/// leases instead).
///
/// The server releases it when the connection ends — at ``release()``, or when the process dies (the server
/// notices the closed socket at once; a vanished machine only after TCP keepalives give up).
///
/// Not guaranteed: exclusion after the lock's connection is lost while the process lives (the lock is gone with
/// it; ``isHeld`` then turns false and the holder should stop, which `tandem serve` reports in its log).
public final class PGServingLock: @unchecked Sendable {
    /// `tandem` in ASCII: the advisory lock key every Tandem server takes.
    static let key: Int64 = 0x74_61_6E_64_65_6D
    private let connection: PGConnection
    private let lock = NSLock()

    private init(connection: PGConnection) {
        self.connection = connection
    }

    /// Takes the lock without waiting; fails naming the holder (its application name, address and backend pid)
    /// when another session holds it.
    public static func take(_ target: PGConnectionTarget) async throws(PGError) -> PGServingLock {
        try await PGStore.blocking { () throws(PGError) -> PGServingLock in
            let connection = try PGConnection(target)
            guard try connection.execute("SELECT pg_try_advisory_lock($1)", [String(key)]).scalar == "t" else {
                let holder = try? connection.execute("""
                    SELECT coalesce(a.application_name, ''), coalesce(host(a.client_addr), 'local socket'), a.pid
                    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                    WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    LIMIT 1
                    """, [String(key & 0xFFFF_FFFF)]).rows.first
                connection.close()
                let who = holder.map { "\($0[0] ?? "?") at \($0[1] ?? "?"), backend pid \($0[2] ?? "?")" } ?? "another session"
                throw .client("another tandem serve is using this database (\(who)); stop it first, or give this one its own database")
            }
            return PGServingLock(connection: connection)
        }.get()
    }

    /// Whether the lock's connection still answers (a round trip; off the cooperative pool).
    public func isHeld() async -> Bool {
        await PGStore.blocking { [self] in
            lock.withLock { connection.isUsable && (try? connection.execute("SELECT 1").scalar) == "1" }
        }
    }

    /// Ends the lock's session, which releases it. Idempotent.
    public func release() {
        lock.withLock { connection.close() }
    }

    deinit { connection.close() }
}
