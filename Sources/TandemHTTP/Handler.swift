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
/// Handlers cannot throw: map errors to a `Response` yourself. A handler that
/// traps crashes the process; nothing catches it. An async handler is NOT
/// cancelled if the client disconnects (the server cannot see disconnects
/// while the connection is suspended).
public enum Handler: Sendable {
    case sync(@Sendable (Request) -> Response)
    case async(@Sendable (Request) async -> Response)
}
