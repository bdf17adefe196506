import Synchronization
import TandemCore

/// An ordered log shared between test doubles, to check what happened first.
public final class OrderLog: Sendable {
    public init() {}
    private let entries = Mutex<[String]>([])
    public func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    public var all: [String] { entries.withLock { $0 } }
}

/// A clock that moves only when the test says so.
public final class ManualClock: SchedulerClock {
    private let state: Mutex<(now: Timestamp, sleepers: [(Timestamp, CheckedContinuation<Void, any Error>)])>

    public init(_ start: Timestamp) { state = Mutex((start, [])) }

    public func now() -> Timestamp { state.withLock { $0.now } }

    public func sleep(until deadline: Timestamp) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let due = state.withLock { state -> Bool in
                if state.now >= deadline { return true }
                state.sleepers.append((deadline, continuation))
                return false
            }
            if due { continuation.resume() }
        }
    }

    public func advance(to instant: Timestamp) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = max(state.now, instant)
            let due = state.sleepers.filter { $0.0 <= state.now }.map(\.1)
            state.sleepers.removeAll { $0.0 <= state.now }
            return due
        }
        for continuation in woken { continuation.resume() }
    }
}

/// Records pushes; answers with `verdict` per target; optionally holds every send until `release()`.
public final class RecordingPushSender: PushSender {
    private let state = Mutex<(sent: [PushRequest], cancelled: Int, held: Bool, waiters: [CheckedContinuation<Void, Never>])>(([], 0, false, []))
    public let verdict: @Sendable (PushTarget) -> PushVerdict
    let sharedLog: OrderLog?

    public init(hold: Bool = false, sharedLog: OrderLog? = nil, verdict: @escaping @Sendable (PushTarget) -> PushVerdict = { _ in .accepted }) {
        self.verdict = verdict
        self.sharedLog = sharedLog
        state.withLock { $0.held = hold }
    }

    public func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let held = state.withLock { state -> Bool in
                if state.held { state.waiters.append(continuation) }
                return state.held
            }
            if !held { continuation.resume() }
        }
        if Task.isCancelled {
            state.withLock { $0.cancelled += 1 }
            return [:]
        }
        sharedLog?.append("push")
        state.withLock { $0.sent.append(push) }
        return Dictionary(uniqueKeysWithValues: push.targets.map { ($0.deviceID, verdict($0)) })
    }

    public func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.held = false
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    public var sent: [PushRequest] { state.withLock { $0.sent } }
    public var cancelled: Int { state.withLock { $0.cancelled } }
    public var waiting: Int { state.withLock { $0.waiters.count } }
}

/// Records SMS and accepts each under new references `smsc-<n>` (one part) or `smsc-<n>.<part>`.
public final class RecordingSMSSender: SMSSender {
    private let parts: Int
    public init(parts: Int = 1) { self.parts = parts }
    public var providerName: String { "recording" }
    private let state = Mutex<[SMSRequest]>([])

    public func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        let count = state.withLock { requests -> Int in
            requests.append(sms)
            return requests.count
        }
        return .submitted(references: parts == 1 ? ["smsc-\(count)"] : (1...parts).map { "smsc-\(count).\($0)" })
    }

    public var sent: [SMSRequest] { state.withLock { $0 } }
}

/// Polls `condition` (a state change the test cannot be told about) every 2 ms until it holds or
/// `timeout` of real time passes — a bound for failures, not a pause. It sleeps between polls rather
/// than spinning, so on a small machine the work it waits for gets the CPU. The bound is generous (60 s):
/// `swift test` runs every suite of the package in one process at once, and on two cores the busiest of them
/// (64,000 group commits, checkpointer churn, thousands of pushes) hold the cooperative pool for tens of seconds.
public func eventually(timeout: Duration = .seconds(60), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
