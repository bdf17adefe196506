import Synchronization

/// A bound on the request-body bytes all connections together hold in memory
/// (`HTTPServer.Configuration.maxBufferedBodyBytes`).
///
/// A request reserves its declared `Content-Length` before its body is read (or, for a chunked body, each
/// chunk as it arrives) and gives everything back when it completes. A reservation that would pass the
/// bound fails: the request is answered 503 with `Retry-After` instead of being read. Lock-free.
final class BodyBudget: Sendable {
    let capacity: Int
    private let reserved = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Reserves `bytes`; false (and nothing reserved) when that would pass the capacity.
    func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        var current = reserved.load(ordering: .relaxed)
        while true {
            guard current + bytes <= capacity else { return false }
            let (exchanged, original) = reserved.compareExchange(expected: current, desired: current + bytes,
                                                                 ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        reserved.subtract(bytes, ordering: .relaxed)
    }

    /// Bytes reserved now.
    var inUse: Int { reserved.load(ordering: .relaxed) }
}
