import Synchronization

/// Lets at most `capacity` requests to one provider be in flight at once; the others wait here, in two
/// lanes — urgent (a PIN someone is waiting for) before bulk (queued SMS) — each first come, first served.
///
/// Why here and not in the HTTP client's own queue: the client counts a request's timeout from the moment
/// it is handed over, so a burst of 50,000 SMS queued behind a few connections would time out after the
/// first few seconds' worth — and a PIN sent meanwhile would wait behind all of them. Waiting here costs
/// no timeout, and a request holds a connection only while it is really on the wire.
///
/// A waiter whose task is cancelled leaves its lane and `acquire` throws `CancellationError`.
/// Not guaranteed: fairness between the lanes (bulk waits as long as urgent requests keep coming).
final class RequestGate: Sendable {
    enum Lane: Sendable { case urgent, bulk }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var urgent: [Waiter] = []
        var bulk: [Waiter] = []
        var urgentHead = 0
        var bulkHead = 0
        var nextID: UInt64 = 0

        var waiting: Int { urgent.count - urgentHead + bulk.count - bulkHead }

        /// The next waiter to hand a freed slot to, urgent first.
        mutating func popNext() -> Waiter? {
            if urgentHead < urgent.count { return Self.pop(&urgent, &urgentHead) }
            if bulkHead < bulk.count { return Self.pop(&bulk, &bulkHead) }
            return nil
        }

        private static func pop(_ lane: inout [Waiter], _ head: inout Int) -> Waiter {
            let waiter = lane[head]
            head += 1
            if head > 1024 && head * 2 > lane.count {  // drop the served prefix now and then, not on every pop
                lane.removeFirst(head)
                head = 0
            }
            return waiter
        }

        mutating func remove(id: UInt64) -> Waiter? {
            if let index = urgent[urgentHead...].firstIndex(where: { $0.id == id }) { return urgent.remove(at: index) }
            if let index = bulk[bulkHead...].firstIndex(where: { $0.id == id }) { return bulk.remove(at: index) }
            return nil
        }
    }

    private let state: Mutex<State>

    init(capacity: Int) {
        precondition(capacity >= 1, "a gate needs at least one slot")
        state = Mutex(State(available: capacity))
    }

    /// Requests waiting for a slot (for logs and metrics).
    var waiting: Int { state.withLock { $0.waiting } }

    /// Whether every slot is taken.
    var isFull: Bool { state.withLock { $0.available == 0 } }

    /// Runs `body` once a slot is free, and frees it afterwards.
    func run<T>(_ lane: Lane, _ body: () async -> T) async throws(CancellationError) -> T {
        try await acquire(lane)
        defer { release() }
        return await body()
    }

    private func acquire(_ lane: Lane) async throws(CancellationError) {
        let id: UInt64? = state.withLock { state in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let cancelled = state.withLock { state -> Bool in
                        if Task.isCancelled { return true }
                        let waiter = Waiter(id: id, continuation: continuation)
                        switch lane {
                        case .urgent: state.urgent.append(waiter)
                        case .bulk: state.bulk.append(waiter)
                        }
                        return false
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                state.withLock { $0.remove(id: id) }?.continuation.resume(throwing: CancellationError())
            }
        } catch {
            throw CancellationError()
        }
    }

    private func release() {
        let next = state.withLock { state -> Waiter? in
            if let waiter = state.popNext() { return waiter }  // the slot passes straight to it
            state.available += 1
            return nil
        }
        next?.continuation.resume()
    }
}
