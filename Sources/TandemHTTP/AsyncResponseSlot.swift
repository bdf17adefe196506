import Synchronization

/// Hands an async handler's response back to the suspended connection and
/// guarantees the connection is resumed exactly once.
///
/// Whoever moves the slot out of `pending` — the handler's task (`complete`)
/// or server shutdown (`abandon`) — resumes the connection, and does so while
/// holding the lock, so once any caller observes a non-pending state the
/// resume has already happened. After `abandon`, a late `complete` is a no-op:
/// the connection may already be gone and is never touched again.
final class AsyncResponseSlot: Sendable {
    private enum State {
        case pending
        case completed(Response)
        case abandoned
        case taken
    }

    private let state = Mutex(State.pending)
    private let connection: MHDConnection

    init(connection: MHDConnection) {
        self.connection = connection
    }

    /// Stores the response and resumes the connection, unless abandoned.
    func complete(_ response: Response) {
        state.withLock { state in
            guard case .pending = state else { return }
            state = .completed(response)
            connection.resume()
        }
    }

    /// Gives up on the handler (server stopping) and resumes the connection, unless already completed.
    func abandon() {
        state.withLock { state in
            guard case .pending = state else { return }
            state = .abandoned
            connection.resume()
        }
    }

    /// The completed response, once; nil if abandoned (or already taken).
    func take() -> Response? {
        state.withLock { state -> Response? in
            guard case .completed(let response) = state else { return nil }
            state = .taken
            return response
        }
    }
}
