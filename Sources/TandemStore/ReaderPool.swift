import TandemStoreSupport
/// A fixed set of read-only connections, lent out one caller at a time (internal).
///
/// ``read(_:)`` checks a connection out under the lock, blocking the calling thread while all are
/// lent out, runs the body on the caller's thread, and returns it (rolling back any transaction
/// the body left open). Not guaranteed: fairness between blocked callers (the condition variable
/// decides), or a consistent snapshot across several statements unless the body wraps them in
/// a transaction (see ``Store/readSnapshot(_:)``).
final class ReaderPool: Sendable {
    private struct State: Sendable {
        var idle: [ConnectionHandle]
        var closed = false
    }

    private let lock: ConditionLock<State>

    /// Opens `count` (at least 1) read-only connections on an existing WAL database.
    init(path: String, count: Int, options: ConnectionOptions) throws(StoreError) {
        var readOnly = options
        readOnly.readOnly = true
        var handles: [ConnectionHandle] = []
        for _ in 0..<max(1, count) {
            handles.append(ConnectionHandle(try Connection(path: path, options: readOnly)))
        }
        lock = ConditionLock(State(idle: handles))
    }

    /// `closed` builds the error thrown when the pool is closed, in the body's error type.
    func read<T, Failure: Error>(
        _ body: (Connection) throws(Failure) -> T, closed: () -> Failure
    ) throws(Failure) -> T {
        let handle = lock.withLock(waitingUntil: { !$0.idle.isEmpty || $0.closed }) { state in
            state.closed ? nil : state.idle.popLast()
        }
        guard let handle else { throw closed() }
        defer { checkIn(handle) }
        return try body(handle.connection)
    }

    private func checkIn(_ handle: ConnectionHandle) {
        let connection = handle.connection
        if connection.isInTransaction {
            _ = try? connection.run("ROLLBACK")
        }
        let keep = lock.withLock { state in
            guard !state.closed else { return false }
            state.idle.append(handle)
            return true
        }
        if keep {
            lock.signal()
        } else {
            connection.close()
        }
    }

    /// Closes idle connections now and lent-out ones when they come back; later reads throw `.closed`.
    func close() {
        let idle = lock.withLock { state in
            state.closed = true
            let idle = state.idle
            state.idle.removeAll()
            return idle
        }
        lock.broadcast()
        for handle in idle {
            handle.connection.close()
        }
    }
}
