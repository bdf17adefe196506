import TandemCore

/// The simulators' default time source: the monotonic clock (`ContinuousClock`), counted in milliseconds
/// from when the value was made. The simulators only measure delays, so a wall-clock step never moves a
/// simulated receipt or report; tests pass a manual ``SchedulerClock`` instead.
///
/// Not meaningful: the absolute ``Timestamp`` values (they are not Unix times).
public struct SimulatorClock: SchedulerClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Timestamp {
        let (seconds, attoseconds) = (ContinuousClock.now - origin).components
        return Timestamp(milliseconds: seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }

    /// Never returns early: `now()` rounds down, so the time slept is at least what is left.
    public func sleep(until deadline: Timestamp) async throws {
        while true {
            let remaining = deadline.milliseconds - now().milliseconds
            if remaining <= 0 { return }
            try await Task.sleep(for: .milliseconds(remaining))
        }
    }
}
