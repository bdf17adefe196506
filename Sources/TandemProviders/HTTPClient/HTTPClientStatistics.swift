import Synchronization

/// A snapshot of a client's counters, for tests and metrics. Counters only grow, except
/// `activeTransfers`. Fields are read one by one, so a snapshot taken while requests are
/// running need not be mutually consistent.
public struct HTTPClientStatistics: Sendable, Hashable {
    /// New connections curl opened (the sum of `CURLINFO_NUM_CONNECTS` over finished transfers).
    public var connectionsOpened: Int
    /// Requests that ended with a response, whatever its status.
    public var requestsCompleted: Int
    /// Requests handed to the loop thread that ended with an error, including cancelled and
    /// shut-down ones. (Invalid requests and tasks cancelled before sending are not counted.)
    public var requestsFailed: Int
    /// Transfers currently on the multi handle (running or waiting for a connection).
    public var activeTransfers: Int
}

/// The counters behind `HTTPClientStatistics`: written by the loop thread, read by anyone.
final class StatisticsCounters: Sendable {
    let connectionsOpened = Atomic<Int>(0)
    let requestsCompleted = Atomic<Int>(0)
    let requestsFailed = Atomic<Int>(0)
    let activeTransfers = Atomic<Int>(0)

    func snapshot() -> HTTPClientStatistics {
        HTTPClientStatistics(
            connectionsOpened: connectionsOpened.load(ordering: .relaxed),
            requestsCompleted: requestsCompleted.load(ordering: .relaxed),
            requestsFailed: requestsFailed.load(ordering: .relaxed),
            activeTransfers: activeTransfers.load(ordering: .relaxed))
    }
}
