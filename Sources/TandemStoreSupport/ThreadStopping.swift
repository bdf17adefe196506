import Foundation

/// The state a dedicated worker thread (a store's group-commit writer, SQLite's checkpointer) shares with those
/// who stop it: a request to stop, the fact that it has, and who waits for that (package access).
package protocol ThreadStopping {
    var closing: Bool { get set }
    var stopped: Bool { get set }
    var closeWaiters: [CheckedContinuation<Void, Never>] { get set }
}

extension ConditionLock where State: ThreadStopping {
    /// Asks the thread to stop, without waiting for it.
    package func requestStop() {
        withLock { state in state.closing = true }
        signal()
    }

    /// Asks the thread to stop and returns once it has (at once if it already had). Idempotent.
    package func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = withLock { state in
                state.closing = true
                if state.stopped { return true }
                state.closeWaiters.append(continuation)
                return false
            }
            if stopped {
                continuation.resume()
            } else {
                signal()
            }
        }
    }

    /// Called by the thread as its last act: wakes everyone waiting in ``stop()``.
    package func markStopped() {
        let waiters = withLock { state in
            state.stopped = true
            defer { state.closeWaiters.removeAll() }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Starts `body` on an OS thread of its own (1 MiB stack), outside Swift's cooperative pool: for loops that
/// block on a lock or on SQLite. `name` is what `top -H`, `perf` and `/proc/PID/task/*/comm` show: at most
/// 15 bytes, the kernel's limit (a longer name is refused, and the thread keeps its creator's).
package func startDedicatedThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    precondition(name.utf8.count <= 15, "thread names are at most 15 bytes")
    let thread = Thread {
        // Named from inside: Foundation applies a name set before `start()` to the Thread object only.
        Thread.current.name = name
        body()
    }
    thread.stackSize = 1 << 20
    thread.start()
}
