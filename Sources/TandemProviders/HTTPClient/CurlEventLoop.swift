import Synchronization

/// The state shared between calling tasks and the one loop thread: the multi handle (for
/// `wakeup` only), an inbox of submissions and cancellations behind a mutex, and counters.
/// The loop thread itself runs `LoopDriver`, which alone touches the easy handles.
///
/// Lifecycle: `running` → `stopping` (shutdown requested; submissions refused) → `stopped`
/// (the thread has failed every transfer, released every easy handle and is exiting).
/// The thread holds a reference until it exits, so the multi handle outlives it.
final class CurlEventLoop: Sendable {
    let multi: CurlMultiHandle
    let configuration: HTTPClient.Configuration
    let counters = StatisticsCounters()
    private let nextID = Atomic<UInt64>(1)
    private let inbox = Mutex(Inbox())

    private struct Inbox: ~Copyable {
        var phase = Phase.running
        var submitted: [TransferTicket] = []
        var cancelled: [TransferID] = []
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    }

    enum Phase {
        case running, stopping, stopped
    }

    /// What the loop thread picks up in one pass.
    struct Work {
        var submitted: [TransferTicket]
        var cancelled: [TransferID]
        var stopping: Bool
    }

    init(configuration: HTTPClient.Configuration) throws(HTTPClientError) {
        self.configuration = configuration
        multi = try CurlMultiHandle(configuration: configuration)
    }

    func makeTicket(for request: HTTPClientRequest) -> TransferTicket {
        TransferTicket(id: TransferID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue), request: request)
    }

    // MARK: Any thread

    /// Queues `ticket` for the loop thread; false once shutdown has begun.
    func submit(_ ticket: TransferTicket) -> Bool {
        inbox.withLock { inbox in
            switch inbox.phase {
            case .running:
                inbox.submitted.append(ticket)
                multi.wakeup()
                return true
            case .stopping, .stopped:
                return false
            }
        }
    }

    /// Asks the loop thread to remove transfer `id` and fail it with `.cancelled`.
    func cancel(_ id: TransferID) {
        inbox.withLock { inbox in
            switch inbox.phase {
            case .running:
                inbox.cancelled.append(id)
                multi.wakeup()
            case .stopping, .stopped:
                break // shutdown fails every transfer anyway
            }
        }
    }

    /// Begins shutdown (idempotent). `waiter`, if any, is resumed once the thread has
    /// released every easy handle — at once if that has already happened.
    func shutdown(waiter: CheckedContinuation<Void, Never>?) {
        let resumeNow = inbox.withLock { inbox -> Bool in
            switch inbox.phase {
            case .running:
                inbox.phase = .stopping
                multi.wakeup()
            case .stopping:
                break
            case .stopped:
                return true
            }
            if let waiter { inbox.shutdownWaiters.append(waiter) }
            return false
        }
        if resumeNow { waiter?.resume() }
    }

    var phase: Phase {
        inbox.withLock { $0.phase }
    }

    // MARK: Loop thread only

    func takeWork() -> Work {
        inbox.withLock { inbox in
            defer {
                inbox.submitted.removeAll()
                inbox.cancelled.removeAll()
            }
            let stopping = switch inbox.phase {
            case .running: false
            case .stopping, .stopped: true
            }
            return Work(submitted: inbox.submitted, cancelled: inbox.cancelled, stopping: stopping)
        }
    }

    /// Marks the loop stopped and returns the shutdown waiters to resume.
    func markStopped() -> [CheckedContinuation<Void, Never>] {
        inbox.withLock { inbox in
            inbox.phase = .stopped
            defer { inbox.shutdownWaiters.removeAll() }
            return inbox.shutdownWaiters
        }
    }
}
