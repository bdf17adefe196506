import Synchronization

/// A route handler.
///
/// - `sync` runs directly on a libmicrohttpd worker thread: no task hop, the
///   fastest path. It must not block for long: while it runs, every other
///   connection owned by that worker thread waits. Do not call blocking I/O or
///   wait on async work from it.
/// - `async` suspends the connection, runs the handler in a new unstructured
///   `Task`, and resumes the connection when it returns. It costs a task hop
///   (measured ≈30–45 % throughput on trivial requests) but frees the worker.
///
/// - `deferred` suspends the connection and runs on the worker thread like
///   `sync`, but answers through its ``Responder`` — once, from any thread, at
///   once or later (a callback from another component). No task is created:
///   for a hot path whose slow part is work already queued elsewhere. The same
///   rule as `sync` holds for the time it runs on the worker thread.
///
/// Handlers cannot throw: map errors to a `Response` yourself. A handler that
/// traps crashes the process; nothing catches it. An async or deferred handler
/// is NOT cancelled if the client disconnects (the server cannot see
/// disconnects while the connection is suspended).
public enum Handler: Sendable {
    case sync(@Sendable (Request) -> Response)
    case async(@Sendable (Request) async -> Response)
    case deferred(@Sendable (Request, Responder) -> Void)
}

/// How a `deferred` handler answers: the first ``respond(_:)`` is the response, later ones are ignored. A
/// responder released without an answer answers 500 (a handler that lost it must not hang its client).
public final class Responder: Sendable {
    /// The server's suspended connection, or a closure (for callers outside the server: tests, adapters).
    private enum Target {
        case slot(AsyncResponseSlot)
        case closure(@Sendable (Response) -> Void)
    }

    private let target: Target
    private let answered = Atomic(false)

    public init(_ answer: @escaping @Sendable (Response) -> Void) {
        target = .closure(answer)
    }

    /// Answers the suspended connection behind `slot` (no closure to allocate per request).
    init(slot: AsyncResponseSlot) {
        target = .slot(slot)
    }

    public func respond(_ response: Response) {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        answer(response)
    }

    private func answer(_ response: Response) {
        switch target {
        case .slot(let slot): slot.complete(response)
        case .closure(let answer): answer(response)
        }
    }

    deinit {
        if !answered.load(ordering: .acquiring) {
            answer(.serverError(.internalServerError, "the request was dropped without an answer"))
        }
    }
}
