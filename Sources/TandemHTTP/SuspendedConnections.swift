import Synchronization

/// The async requests whose connections are currently suspended, so shutdown
/// can resume them all before `MHD_stop_daemon` (which must not run while any
/// connection is suspended).
///
/// The lock is held only to insert, remove or snapshot — never while a handler runs.
final class SuspendedConnections: Sendable {
    private struct State {
        var slots: [ObjectIdentifier: AsyncResponseSlot] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    /// Records a slot whose connection was just suspended. Returns false once
    /// `closeAndAbandonAll()` has run; the caller must then abandon the slot itself.
    func register(_ slot: AsyncResponseSlot) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.slots[ObjectIdentifier(slot)] = slot
            return true
        }
    }

    func unregister(_ slot: AsyncResponseSlot) {
        state.withLock { state in
            _ = state.slots.removeValue(forKey: ObjectIdentifier(slot))
        }
    }

    /// Refuses further registrations and abandons (resumes) every registered slot still pending.
    func closeAndAbandonAll() {
        let slots = state.withLock { state -> [AsyncResponseSlot] in
            state.closed = true
            let all = Array(state.slots.values)
            state.slots.removeAll()
            return all
        }
        for slot in slots { slot.abandon() }
    }
}
