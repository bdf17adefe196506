import Synchronization
import TandemCore

/// Carries out the network side of delivery actions (`sendPush`, `sendSMS`, `terminatePush`) against
/// the provider ports, and turns their results back into events through `deliver`.
///
/// Each push runs in its own task, so a slow provider never holds up the scheduler, and a terminated push
/// is cancelled if its task has not finished (the sender is expected to check cancellation before sending).
/// SMS run in a task each too, except with a ``BatchSMSSender``: then the SMS of one `dispatch` call go in
/// one task and their results come back as one batch.
/// Not guaranteed: ordering between the verdicts of different deliveries; exactly-once sending across a
/// crash (see the scheduler's recovery notes).
public final class Dispatcher: Sendable {
    /// Where results go, several at a time, in order: normally `Scheduler.record(_:)`.
    public typealias Deliver = @Sendable ([(DeliveryKey, DeliveryEvent)]) async -> Void

    /// The network actions of one delivery, as the scheduler hands them over after a commit.
    public struct Work: Sendable {
        public let actions: [DeliveryAction]
        public let context: StoredDelivery
        public init(actions: [DeliveryAction], context: StoredDelivery) {
            self.actions = actions
            self.context = context
        }
    }

    private struct State {
        var pushTasks: [DeliveryKey: Task<Void, Never>] = [:]
        var running = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let push: any PushSender
    private let sms: any SMSSender
    /// `sms` when it takes batches.
    private let batchSMS: (any BatchSMSSender)?
    private let metrics: DeliveryMetrics
    private let state = Mutex(State())

    public init(push: any PushSender, sms: any SMSSender, metrics: DeliveryMetrics = .discarding) {
        self.push = push
        self.metrics = metrics
        self.sms = sms
        self.batchSMS = sms as? any BatchSMSSender
    }

    /// Starts the network actions (push, SMS, terminate) of several deliveries — a scheduler batch — in
    /// order; everything else is the scheduler's or the store's.
    public func dispatch(_ work: [Work], deliver: @escaping Deliver) {
        var sms: [SMSRequest] = []
        var unreachable: [DeliveryKey] = []
        for item in work {
            let context = item.context
            for action in item.actions {
                switch action {
                case .sendPush(let targets, let policy):
                    let request = PushRequest(key: context.key, recipient: context.recipient, targets: targets, policy: policy,
                                              content: context.content)
                    startPush(request, deliver: deliver)
                case .sendSMS:
                    guard let msisdn = context.recipient.msisdn else {
                        // A registration addressed directly has no number (its routes never allow SMS).
                        unreachable.append(context.key)
                        continue
                    }
                    sms.append(SMSRequest(key: context.key, msisdn: msisdn, content: context.content,
                                          validity: context.delivery.smsValidity))
                case .terminatePush:
                    let task = state.withLock { $0.pushTasks.removeValue(forKey: context.key) }
                    task?.cancel()
                case .schedule, .cancel, .invalidateRegistration, .record, .report:
                    break
                }
            }
        }
        if !unreachable.isEmpty {
            let events = unreachable.map { ($0, Self.event(for: .rejected(reason: "the recipient has no number"), provider: self.sms.providerName)) }
            track(pushKey: nil) { await deliver(events) }
        }
        guard !sms.isEmpty else { return }
        if let batchSender = batchSMS {
            startSMS(batch: sms, on: batchSender, deliver: deliver)
        } else {
            for request in sms { startSMS(request, deliver: deliver) }
        }
    }

    private func startPush(_ request: PushRequest, deliver: @escaping Deliver) {
        let (sender, metrics) = (push, metrics)
        track(pushKey: request.key) {
            let verdicts = await sender.send(request)
            let events = request.targets.compactMap { target -> (DeliveryKey, DeliveryEvent)? in
                guard let verdict = verdicts[target.deviceID] else {
                    return nil  // cancelled (terminated) before a verdict: nothing happened on the wire
                }
                metrics.pushed(target.platform, verdict)
                return switch verdict {
                case .accepted: (request.key, .pushAccepted(target.deviceID))
                case .rejected(let rejection): (request.key, .pushRejected(target.deviceID, rejection))
                }
            }
            if !events.isEmpty { await deliver(events) }
        }
    }

    private func startSMS(_ request: SMSRequest, deliver: @escaping Deliver) {
        let (sender, metrics) = (sms, metrics)
        track(pushKey: nil) {
            let result = await sender.submit(request)
            metrics.submitted(result)
            await deliver([(request.key, Self.event(for: result, provider: sender.providerName))])
        }
    }

    private func startSMS(batch: [SMSRequest], on sender: any BatchSMSSender, deliver: @escaping Deliver) {
        let metrics = metrics
        track(pushKey: nil) {
            let results = await sender.submit(batch: batch)
            for result in results { metrics.submitted(result) }
            let provider = sender.providerName
            await deliver(zip(batch, results).map { request, result in (request.key, Self.event(for: result, provider: provider)) })
        }
    }

    /// A submission's result as the delivery's event.
    private static func event(for result: SMSSubmitResult, provider: String) -> DeliveryEvent {
        switch result {
        case .submitted(let references) where !references.isEmpty:
            .smsSubmitted(SMSSubmission(provider: provider, references: references))
        case .submitted:
            .smsReportReceived(.failed)  // a provider bug: nothing to match reports to
        case .rejected:
            .smsReportReceived(.failed)
        }
    }

    /// Runs `work` in a task counted for `waitUntilIdle`; a push task is also kept under its key until it
    /// ends, so `terminatePush` can cancel it. The task is created under the lock, so it cannot end (and
    /// unregister) before it is registered.
    private func track(pushKey: DeliveryKey?, _ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            state.running += 1
            let task = Task {
                await work()
                let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    if let pushKey { state.pushTasks[pushKey] = nil }
                    state.running -= 1
                    guard state.running == 0 else { return [] }
                    defer { state.idleWaiters.removeAll() }
                    return state.idleWaiters
                }
                for waiter in waiters { waiter.resume() }
            }
            if let pushKey { state.pushTasks[pushKey] = task }
        }
    }

    /// Sends started so far and not yet finished (including delivering their results).
    public var runningCount: Int { state.withLock { $0.running } }

    /// Returns once every send started so far has finished and delivered its results.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.running == 0 { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
