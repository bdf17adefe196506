import Synchronization

/// Identifies one transfer between a calling task and the loop thread. Never reused
/// within a client; never 0 (it doubles as curl's `CURLOPT_PRIVATE` pointer value).
struct TransferID: Hashable, Sendable {
    let rawValue: UInt64
}

typealias TransferResult = Result<HTTPClientResponse, HTTPClientError>
typealias TransferContinuation = CheckedContinuation<TransferResult, Never>

/// The handshake between the task awaiting a response and the loop thread running it.
/// It resumes the task exactly once, whichever of completion, cancellation or shutdown
/// comes first; later outcomes are dropped.
///
/// Ordering it guarantees: `cancel()` records the request *before* the caller tells the
/// loop, so the loop either finds the transfer running or sees `isCancelRequested` when
/// it would start it — a cancellation is never lost between submission and start.
final class TransferTicket: Sendable {
    let id: TransferID
    let request: HTTPClientRequest
    private let state = Mutex<State>(.created)

    private enum State {
        /// `send` has not yet installed its continuation.
        case created
        /// The task is suspended; the transfer is queued or running.
        case waiting(TransferContinuation, cancelRequested: Bool)
        /// The task was cancelled before it suspended: nothing was, or will be, submitted.
        case cancelledBeforeWaiting
        case finished
    }

    init(id: TransferID, request: HTTPClientRequest) {
        self.id = id
        self.request = request
    }

    /// Installs the continuation. Returns false, having resumed it with `.cancelled`, when
    /// the task was cancelled first; the caller must then not submit the ticket.
    func wait(_ continuation: TransferContinuation) -> Bool {
        let proceed = state.withLock { state -> Bool in
            switch state {
            case .created:
                state = .waiting(continuation, cancelRequested: false)
                return true
            case .cancelledBeforeWaiting:
                state = .finished
                return false
            case .waiting, .finished:
                preconditionFailure("TransferTicket.wait called twice")
            }
        }
        if !proceed { continuation.resume(returning: .failure(.cancelled)) }
        return proceed
    }

    /// Records the task's cancellation. Returns true when the loop must be told, because the
    /// transfer may be queued or running.
    func cancel() -> Bool {
        state.withLock { state -> Bool in
            switch state {
            case .created:
                state = .cancelledBeforeWaiting
                return false
            case .waiting(let continuation, cancelRequested: false):
                state = .waiting(continuation, cancelRequested: true)
                return true
            case .waiting(_, cancelRequested: true), .cancelledBeforeWaiting, .finished:
                return false
            }
        }
    }

    /// Whether the task has been cancelled while waiting (read by the loop before starting).
    var isCancelRequested: Bool {
        state.withLock { state in
            switch state {
            case .waiting(_, let cancelRequested): cancelRequested
            case .created, .cancelledBeforeWaiting, .finished: false
            }
        }
    }

    /// Resumes the waiting task with `result` unless it was already resumed. Returns whether it did.
    @discardableResult
    func finish(_ result: TransferResult) -> Bool {
        let continuation = state.withLock { state -> TransferContinuation? in
            switch state {
            case .waiting(let continuation, _):
                state = .finished
                return continuation
            case .created, .cancelledBeforeWaiting:
                // The loop only sees tickets whose continuation is installed.
                assertionFailure("TransferTicket.finish before wait")
                state = .finished
                return nil
            case .finished:
                return nil
            }
        }
        continuation?.resume(returning: result)
        return continuation != nil
    }
}
