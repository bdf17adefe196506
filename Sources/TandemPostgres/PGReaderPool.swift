import Foundation
import TandemStoreSupport

/// Reads on a small pool of connections, each owned by a dedicated OS thread — never a thread of Swift's
/// cooperative pool, which a blocking libpq call would hold (internal; used through the PostgreSQL store).
///
/// ``read(_:)`` queues the body; the first idle thread runs it on its connection and resumes the caller. A
/// thread opens its connection when it first needs one, and again after it failed. A read that fails because
/// the connection was lost runs once more on a fresh connection (reads change nothing, so running one twice is
/// harmless); a second loss, or a connection that cannot be opened, is the caller's error — at once, never a
/// hang.
///
/// Not guaranteed: a consistent cut across reads (each runs in its own snapshot); fairness beyond FIFO order.
final class PGReaderPool: Sendable {
    private struct State: Sendable, ThreadStopping {
        var queue: [Job] = []
        var closing = false
        var stopped = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var running: Int
    }

    /// One read: runs on a reader thread with that thread's connection (nil: none yet, or the last one failed).
    private struct Job: Sendable {
        let run: @Sendable (inout PGConnection?) -> Void
    }

    private let lock: ConditionLock<State>
    private let connect: @Sendable () throws(PGError) -> PGConnection

    /// Starts `size` reader threads; `connect` opens a connection (on a reader thread, when one is needed).
    init(size: Int, connect: @escaping @Sendable () throws(PGError) -> PGConnection) {
        let size = max(1, size)
        lock = ConditionLock(State(running: size))
        self.connect = connect
        for index in 0..<size {
            startDedicatedThread(named: "tandem-pgread\(index)") { [self] in self.runLoop() }
        }
    }

    /// Runs `body` on a pooled connection and returns what it returned.
    func read<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws(PGError) -> T) async throws(PGError) -> T {
        let connect = self.connect
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, PGError>, Never>) in
            let job = Job { connection in
                continuation.resume(returning: Self.run(body, on: &connection, connect: connect))
            }
            let accepted = lock.withLock { state in
                guard !state.closing else { return false }
                state.queue.append(job)
                return true
            }
            if accepted {
                lock.signal()
            } else {
                continuation.resume(returning: .failure(.notApplied("the store is closed")))
            }
        }
        return try result.get()
    }

    /// Stops accepting reads, lets the threads run what is queued and close their connections; returns once
    /// they have. Idempotent.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lock.withLock { state in
                state.closing = true
                if state.stopped { return true }
                state.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { lock.broadcast() }
        }
    }

    private static func run<T>(_ body: (PGConnection) throws(PGError) -> T, on connection: inout PGConnection?,
                               connect: () throws(PGError) -> PGConnection) -> Result<T, PGError> {
        for attempt in 0..<2 {
            let open: PGConnection
            if let usable = connection, usable.isUsable {
                open = usable
            } else {
                connection?.close()
                connection = nil
                do throws(PGError) {
                    open = try connect()
                } catch {
                    return .failure(error)
                }
                connection = open
            }
            do throws(PGError) {
                return .success(try body(open))
            } catch {
                guard case .connection = error, attempt == 0, !open.isUsable else { return .failure(error) }
                // Lost while reading: once more, on a fresh connection.
            }
        }
        return .failure(.connection("the connection was lost twice in a row"))
    }

    private func runLoop() {
        var connection: PGConnection?
        while let job = lock.withLock(waitingUntil: { !$0.queue.isEmpty || $0.closing }, { state -> Job? in
            state.queue.isEmpty ? nil : state.queue.removeFirst()
        }) {
            job.run(&connection)
        }
        connection?.close()
        let waiters = lock.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            state.stopped = true
            defer { state.closeWaiters.removeAll() }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
