import Foundation

/// A value protected by a lock, plus a condition variable to wait for changes to it (shared by the store
/// backends' worker threads; package access).
///
/// `@unchecked Sendable` invariant: `state` is only read or written between `condition.lock()`
/// and `condition.unlock()` (every accessor below), never across a `wait` (predicates are
/// re-evaluated after each wake-up). Callers must only put Sendable values in and out.
/// Waiting blocks the calling OS thread — use from dedicated threads or for short critical sections.
package final class ConditionLock<State>: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: State

    package init(_ state: State) {
        self.state = state
    }

    package func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    /// Locks, waits (releasing the lock while asleep) until `predicate` holds, then runs `body`
    /// under the lock. No timeout: someone must change the state and ``signal()``.
    package func withLock<R>(waitingUntil predicate: (State) -> Bool, _ body: (inout State) -> R) -> R {
        condition.lock()
        defer { condition.unlock() }
        while !predicate(state) {
            condition.wait()
        }
        return body(&state)
    }

    /// Wakes one waiter (cheap when nobody waits).
    package func signal() {
        condition.signal()
    }

    /// Wakes all waiters.
    package func broadcast() {
        condition.broadcast()
    }
}
