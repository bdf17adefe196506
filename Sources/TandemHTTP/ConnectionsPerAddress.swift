import Synchronization

/// Open connections counted per client address, for `HTTPServer.Configuration.maxConnectionsPerAddress`.
///
/// libmicrohttpd reports every connection's start and close; between them a connection counts for its
/// address. A connection that starts while its address already holds `limit` connections is *over the
/// limit*: its first request is answered 429 and the connection is closed (and it idles out after
/// `overLimitIdleSeconds` if it sends nothing). Up to `answeredExcess` such connections per address are
/// accepted so that clients get that answer; beyond them new connections from that address are closed at
/// accept, unanswered. So one address holds at most `limit + answeredExcess` of the server's connections.
///
/// Not guaranteed: an exact count under races between accept and close (an accept may see a count that a
/// closing connection is about to lower). Off when `limit` is 0.
final class ConnectionsPerAddress: Sendable {
    /// Connections beyond the limit that are still accepted, to be answered 429.
    static let answeredExcess = 16
    /// Idle timeout of a connection over the limit.
    static let overLimitIdleSeconds: UInt32 = 5

    let limit: Int
    private let counts = Mutex<[ClientAddress: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    var isEnabled: Bool { limit > 0 }

    /// Whether a new connection from `address` may be accepted at all.
    func admits(_ address: ClientAddress) -> Bool {
        guard isEnabled else { return true }
        return counts.withLock { ($0[address] ?? 0) < limit + Self.answeredExcess }
    }

    /// Counts a started connection; returns true when it is over the limit.
    func opened(_ address: ClientAddress) -> Bool {
        guard isEnabled else { return false }
        return counts.withLock { counts in
            let open = (counts[address] ?? 0) + 1
            counts[address] = open
            return open > limit
        }
    }

    /// Stops counting a closed connection.
    func closed(_ address: ClientAddress) {
        guard isEnabled else { return }
        counts.withLock { counts in
            guard let open = counts[address] else { return }
            counts[address] = open > 1 ? open - 1 : nil
        }
    }

    /// Connections currently counted for `address` (for tests and diagnostics).
    func openConnections(of address: ClientAddress) -> Int {
        counts.withLock { $0[address] ?? 0 }
    }
}
