import Synchronization
import TandemCore

/// One `submit(_:)` call in flight: its parts' message ids as they arrive, and the caller waiting for
/// all of them. Finishes exactly once — when every part has a `submit_sm_resp` OK, or at the first
/// refusal, expiry, cancellation or shutdown — and resumes the caller then (at once if it attaches later).
///
/// Not guaranteed: that parts still in flight when it finishes with `.rejected` were not accepted by the
/// SMSC (they may be delivered; their ids are dropped).
final class SMPPSubmission: Sendable {
    let partCount: Int
    /// The latest time a part may still be written; a part waiting longer fails the submission.
    let deadline: ContinuousClock.Instant

    private struct State {
        var ids: [String?]
        var missing: Int
        var result: SMSSubmitResult?
        var waiter: CheckedContinuation<SMSSubmitResult, Never>?
    }

    private let state: Mutex<State>

    init(partCount: Int, deadline: ContinuousClock.Instant) {
        self.partCount = partCount
        self.deadline = deadline
        state = Mutex(State(ids: Array(repeating: nil, count: partCount), missing: partCount))
    }

    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// The result once finished (for tests and logs).
    var result: SMSSubmitResult? { state.withLock { $0.result } }

    /// Resumes `waiter` with the result: now if finished, else when it finishes.
    func attach(_ waiter: CheckedContinuation<SMSSubmitResult, Never>) {
        let result = state.withLock { state -> SMSSubmitResult? in
            if state.result == nil { state.waiter = waiter }
            return state.result
        }
        if let result { waiter.resume(returning: result) }
    }

    /// Part `index` got `submit_sm_resp` OK with `messageID`. The last one finishes the submission.
    func accepted(part index: Int, messageID: String) {
        let (waiter, result) = state.withLock { state -> (CheckedContinuation<SMSSubmitResult, Never>?, SMSSubmitResult?) in
            guard state.result == nil, state.ids[index] == nil else { return (nil, nil) }
            state.ids[index] = messageID
            state.missing -= 1
            guard state.missing == 0 else { return (nil, nil) }
            let result = SMSSubmitResult.submitted(references: state.ids.map { $0 ?? "" })
            state.result = result
            defer { state.waiter = nil }
            return (state.waiter, result)
        }
        if let waiter, let result { waiter.resume(returning: result) }
    }

    /// Finishes with `.rejected(reason:)` unless already finished; true if this call finished it.
    @discardableResult
    func reject(_ reason: String) -> Bool {
        let (finished, waiter) = state.withLock { state -> (Bool, CheckedContinuation<SMSSubmitResult, Never>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = .rejected(reason: reason)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: .rejected(reason: reason))
        return finished
    }
}
