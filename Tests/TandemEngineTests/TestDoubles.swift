import Synchronization
import TandemCore
@testable import TandemEngine

/// An ordered log shared between test doubles, to check what happened first.
final class OrderLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A clock that moves only when the test says so.
final class ManualClock: SchedulerClock {
    private let state: Mutex<(now: Timestamp, sleepers: [(Timestamp, CheckedContinuation<Void, any Error>)])>

    init(_ start: Timestamp) { state = Mutex((start, [])) }

    func now() -> Timestamp { state.withLock { $0.now } }

    func sleep(until deadline: Timestamp) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let due = state.withLock { state -> Bool in
                if state.now >= deadline { return true }
                state.sleepers.append((deadline, continuation))
                return false
            }
            if due { continuation.resume() }
        }
    }

    func advance(to instant: Timestamp) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = max(state.now, instant)
            let due = state.sleepers.filter { $0.0 <= state.now }.map(\.1)
            state.sleepers.removeAll { $0.0 <= state.now }
            return due
        }
        for continuation in woken { continuation.resume() }
    }
}

/// Keeps everything in memory, like the SQLite store would keep it on disk; can be told to fail.
final class InMemoryDeliveryStore: DeliveryStore {
    struct Row: Sendable {
        var msisdn: MSISDN
        var content: MessageContent
        var delivery: Delivery
    }

    struct State {
        var rows: [DeliveryKey: Row] = [:]
        var events: [(DeliveryKey, String, String)] = []
        var reports: [(DeliveryKey, DeliveryStatus)] = []
        var invalidations: [DeviceID] = []
        var nextKey: Int64 = 1
        var failNextCommit = false
        var log: [String] = []
    }

    let state = Mutex(State())
    let sharedLog: OrderLog?

    init(sharedLog: OrderLog? = nil) { self.sharedLog = sharedLog }

    struct InjectedFailure: Error {}

    func commit(inserts: [NewDeliveryRecord], changes: [DeliveryChange]) async throws -> [DeliveryKey] {
        try state.withLock { state in
            if state.failNextCommit {
                state.failNextCommit = false
                throw InjectedFailure()
            }
            var keys: [DeliveryKey] = []
            for record in inserts {
                let key = DeliveryKey(state.nextKey)
                state.nextKey += 1
                state.rows[key] = Row(msisdn: record.msisdn, content: record.content, delivery: record.delivery)
                state.events.append((key, record.event.logKind, record.event.logDetail))
                state.reports += record.effects.reports.map { (key, $0) }
                state.invalidations += record.effects.invalidations
                keys.append(key)
            }
            for change in changes {
                state.rows[change.key]?.delivery = change.delivery
                state.events.append((change.key, change.event.logKind, change.event.logDetail))
                state.reports += change.effects.reports.map { (change.key, $0) }
                state.invalidations += change.effects.invalidations
            }
            return keys
        }
        .also { _ in sharedLog?.append("commit") }
    }

    func appendLateEvent(_ event: DeliveryEvent, to key: DeliveryKey, at: Timestamp) async throws {
        state.withLock { $0.events.append((key, event.logKind, event.logDetail)) }
    }

    func loadInFlight() async throws -> [StoredDelivery] {
        state.withLock { state in
            state.rows.filter { !$0.value.delivery.isFinal }.sorted { $0.key < $1.key }.map {
                StoredDelivery(key: $0.key, msisdn: $0.value.msisdn, content: $0.value.content, delivery: $0.value.delivery)
            }
        }
    }

    func reports(for key: DeliveryKey) -> [DeliveryStatus] { state.withLock { $0.reports.filter { $0.0 == key }.map(\.1) } }
    func events(for key: DeliveryKey) -> [String] { state.withLock { $0.events.filter { $0.0 == key }.map(\.1) } }
    func stored(_ key: DeliveryKey) -> Delivery? { state.withLock { $0.rows[key]?.delivery } }
}

extension Array {
    func also(_ body: (Self) -> Void) -> Self {
        body(self)
        return self
    }
}

/// Records pushes; answers with `verdict` per target; optionally holds every send until `release()`.
final class RecordingPushSender: PushSender {
    private let state = Mutex<(sent: [PushRequest], cancelled: Int, held: Bool, waiters: [CheckedContinuation<Void, Never>])>(([], 0, false, []))
    let verdict: @Sendable (PushTarget) -> PushVerdict
    let sharedLog: OrderLog?

    init(hold: Bool = false, sharedLog: OrderLog? = nil, verdict: @escaping @Sendable (PushTarget) -> PushVerdict = { _ in .accepted }) {
        self.verdict = verdict
        self.sharedLog = sharedLog
        state.withLock { $0.held = hold }
    }

    func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
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

    func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.held = false
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var sent: [PushRequest] { state.withLock { $0.sent } }
    var cancelled: Int { state.withLock { $0.cancelled } }
    var waiting: Int { state.withLock { $0.waiters.count } }
}

/// Records SMS and accepts each under a new reference.
final class RecordingSMSSender: SMSSender {
    private let state = Mutex<[SMSRequest]>([])

    func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        let count = state.withLock { requests -> Int in
            requests.append(sms)
            return requests.count
        }
        return .submitted(reference: "smsc-\(count)")
    }

    var sent: [SMSRequest] { state.withLock { $0 } }
}

/// Yields until `condition` holds or `timeout` of real time passes (a bound for failures, not a pause).
func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        if ContinuousClock.now >= deadline { return false }
        await Task.yield()
    }
    return true
}
