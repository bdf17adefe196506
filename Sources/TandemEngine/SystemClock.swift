#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TandemCore

/// The wall clock (`CLOCK_REALTIME`, unix milliseconds) for the running server. Deadlines are absolute
/// wall-clock times because they are stored and survive restarts.
///
/// `sleep(until:)` never returns early: it sleeps, re-reads the clock, and sleeps again if a clock step
/// backwards left the deadline in the future. Not guaranteed: promptness after a forward clock step
/// beyond what the next re-read notices.
public struct SystemClock: SchedulerClock {
    public init() {}

    public func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(milliseconds: Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    public func sleep(until deadline: Timestamp) async throws {
        while true {
            let remaining = deadline.milliseconds - now().milliseconds
            if remaining <= 0 { return }
            try await Task.sleep(for: .milliseconds(remaining))
        }
    }
}
