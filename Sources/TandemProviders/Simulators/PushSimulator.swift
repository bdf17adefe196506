import Synchronization
import TandemCore

/// An in-process push service *and* the app on the other end, for `make run` and tests.
///
/// For each target of a push, the configured rules (``Configuration/SimulatedPush``) pick a behaviour:
/// accept it and have the app acknowledge it after N ms (and report it read M ms later), accept it and
/// never hear back, or refuse it as a dead token (`.rejected(.tokenDead)`, like APNs 410) or after
/// transient failures. Probabilistic rules draw from a SplitMix64 generator seeded from the settings: the
/// same seed and the same order of targets give the same behaviours.
///
/// Receipts go to the handler given to ``onReceipts(_:)`` — the shell hands them to the same scheduler
/// events the device API produces — in batches, from one task (not a timer per push). Before a handler is
/// set, accepted pushes get no receipts. Every verdict and receipt is logged at info level, in words.
///
/// Not guaranteed: that a receipt due at once (`ackAfter` 0) reaches the engine after the push's own
/// verdict (real push services race the same way); receipts still due when the simulator is released.
public final class PushSimulator: BatchPushSender {
    /// A target the simulator took (refused ones are not kept).
    public struct Sent: Sendable, Hashable {
        public let key: DeliveryKey
        public let deviceID: DeviceID
        public let platform: Platform
        public let body: String
        public let behaviour: Configuration.SimulatedPushBehaviour
    }

    /// Where receipts go, a batch at a time, in the order they fell due (an ack before its read).
    public typealias Receipts = @Sendable ([(DeliveryKey, DeviceID, SimulatedReceipt)]) async -> Void

    struct PendingReceipt: Sendable {
        let key: DeliveryKey
        let device: DeviceID
        let receipt: SimulatedReceipt
    }

    private struct State {
        var generator: SplitMix64
        var sent: [Sent] = []
    }

    private let settings: Configuration.SimulatedPush
    private let clock: any SchedulerClock
    let logger: Logger
    private let receipts: DueQueue<PendingReceipt>
    /// Pushes waiting out `latency`: one task wakes them in batches, not a timer per push.
    private let answers: DueQueue<LatencyWaiter>
    private let state: Mutex<State>

    /// How many accepted targets ``log`` keeps (the oldest are dropped).
    public static let kept = 10_000

    public init(settings: Configuration.SimulatedPush = Configuration.SimulatedPush(),
                clock: any SchedulerClock = SimulatorClock(), logger: Logger = .discarding) {
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.receipts = DueQueue(clock: clock)
        self.answers = DueQueue(clock: clock)
        self.state = Mutex(State(generator: SplitMix64(seed: settings.seed)))
        answers.start { due in
            for waiter in due { waiter.resume() }
        }
    }

    /// Starts delivering the simulated app's receipts to `handler` (once the scheduler exists).
    public func onReceipts(_ handler: @escaping Receipts) {
        let logger = logger
        receipts.start { batch in
            for pending in batch where logger.minimumLevel <= .info {
                switch pending.receipt {
                case .delivered:
                    logger.info("simulated app acknowledged the push", Self.fields(pending))
                case .read:
                    logger.info("simulated app reported the message read", Self.fields(pending))
                }
            }
            await handler(batch.map { ($0.key, $0.device, $0.receipt) })
        }
    }

    public func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
        await waitOutLatency()
        if Task.isCancelled { return [:] }  // terminated while queued: nothing went out
        return answer(push)
    }

    /// The pushes of `batch` wait out one latency together, then each is answered as ``send(_:)`` answers it.
    public func send(batch: [PushRequest]) async -> [[DeviceID: PushVerdict]] {
        guard !batch.isEmpty else { return [] }
        await waitOutLatency()
        if Task.isCancelled { return batch.map { _ in [:] } }
        return batch.map(answer)
    }

    /// The verdicts for `push`'s targets, each target's behaviour narrated and its simulated receipts scheduled.
    private func answer(_ push: PushRequest) -> [DeviceID: PushVerdict] {
        let behaviours = state.withLock { state in
            push.targets.map { Self.behaviour(for: $0, msisdn: push.recipient.msisdn, settings: settings, generator: &state.generator) }
        }
        let now = clock.now()
        let receiptsOn = receipts.isStarted
        var verdicts: [DeviceID: PushVerdict] = [:]
        var due: [(PendingReceipt, Timestamp)] = []
        for (target, behaviour) in zip(push.targets, behaviours) {
            verdicts[target.deviceID] = verdict(for: behaviour)
            narrate(push, target, behaviour, receiptsOn: receiptsOn)
            if case .accepted = verdicts[target.deviceID] {
                record(Sent(key: push.key, deviceID: target.deviceID, platform: target.platform, body: push.content.body,
                            behaviour: behaviour))
            }
            switch behaviour {
            case .ack(let after):
                due.append((PendingReceipt(key: push.key, device: target.deviceID, receipt: .delivered), now + after))
            case .ackAndRead(let ackAfter, let readAfter):
                due.append((PendingReceipt(key: push.key, device: target.deviceID, receipt: .delivered), now + ackAfter))
                due.append((PendingReceipt(key: push.key, device: target.deviceID, receipt: .read), now + ackAfter + readAfter))
            case .neverAck, .tokenDead, .transientFailure:
                break
            }
        }
        // A BWMI badge-only update is no message (no delivery to acknowledge): the simulated app sends no receipts.
        if push.content.presentation.bwmi != .badgeOnly { receipts.schedule(due) }
        return verdicts
    }

    /// Returns once `latency` has passed, or at once when the task is cancelled.
    private func waitOutLatency() async {
        guard settings.latency > .zero else { return }
        let waiter = LatencyWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.wait(continuation)
                answers.schedule(waiter, at: clock.now() + settings.latency)
            }
        } onCancel: {
            waiter.resume()
        }
    }

    /// One push waiting out the latency, resumed once: by the queue when it falls due or on cancellation,
    /// whichever comes first (the other finds it resumed). A cancellation before the wait began resumes it
    /// as soon as it begins.
    final class LatencyWaiter: Sendable {
        private enum State {
            case idle
            case waiting(CheckedContinuation<Void, Never>)
            case resumed
        }

        private let state = Mutex(State.idle)

        func wait(_ continuation: CheckedContinuation<Void, Never>) {
            let resumeNow = state.withLock { state -> Bool in
                switch state {
                case .idle:
                    state = .waiting(continuation)
                    return false
                case .resumed:
                    return true
                case .waiting:
                    preconditionFailure("a latency waiter waited twice")
                }
            }
            if resumeNow { continuation.resume() }
        }

        func resume() {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state = .resumed }
                if case .waiting(let continuation) = state { return continuation }
                return nil
            }
            waiting?.resume()
        }
    }

    /// The latest accepted targets, oldest first.
    public var log: [Sent] { state.withLock { Array($0.sent.suffix(Self.kept)) } }

    /// Receipts waiting to fall due.
    public var pendingReceipts: Int { receipts.count }

    private func verdict(for behaviour: Configuration.SimulatedPushBehaviour) -> PushVerdict {
        switch behaviour {
        case .ack, .ackAndRead, .neverAck: .accepted
        case .tokenDead: .rejected(.tokenDead)
        case .transientFailure: .rejected(.transient)
        }
    }

    private func record(_ sent: Sent) {
        state.withLock { state in
            state.sent.append(sent)
            // Trimmed once it holds twice what it keeps: one move per `kept` pushes, not one per push.
            if state.sent.count >= 2 * Self.kept { state.sent.removeFirst(state.sent.count - Self.kept) }
        }
    }

    /// The first rule that matches `target` decides, else the default. A rule's probability is drawn only
    /// once its token and number conditions hold, so rules that cannot match never consume draws.
    static func behaviour(for target: PushTarget, msisdn: MSISDN?, settings: Configuration.SimulatedPush,
                          generator: inout SplitMix64) -> Configuration.SimulatedPushBehaviour {
        for rule in settings.rules where rule.matches(token: target.token, msisdn: msisdn) {
            guard let probability = rule.probability else { return rule.behaviour }
            if generator.nextUnit() < probability { return rule.behaviour }
        }
        return settings.default
    }
}
