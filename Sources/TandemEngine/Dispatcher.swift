import Synchronization
import TandemCore

/// Carries out the network side of delivery actions (`sendPush`, `sendSMS`, `terminatePush`) against
/// the provider ports, and turns their results back into events through `deliver`.
///
/// Each send runs in its own task, so a slow provider never holds up the scheduler. A terminated push is
/// cancelled if its task has not finished (the sender is expected to check cancellation before sending).
/// Not guaranteed: ordering between the verdicts of different deliveries; exactly-once sending across a
/// crash (see the scheduler's recovery notes).
public final class Dispatcher: Sendable {
    /// Where results go: normally `Scheduler.record(_:for:)`.
    public typealias Deliver = @Sendable (DeliveryEvent, DeliveryKey) async -> Void

    private struct State {
        var pushTasks: [DeliveryKey: Task<Void, Never>] = [:]
        var running = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let push: any PushSender
    private let sms: any SMSSender
    private let state = Mutex(State())

    public init(push: any PushSender, sms: any SMSSender) {
        self.push = push
        self.sms = sms
    }

    /// Starts the network actions among `actions`; everything else is the scheduler's or the store's.
    public func dispatch(_ actions: [DeliveryAction], for context: StoredDelivery, deliver: @escaping Deliver) {
        for action in actions {
            switch action {
            case .sendPush(let targets, let policy):
                let request = PushRequest(key: context.key, msisdn: context.msisdn, targets: targets, policy: policy,
                                          content: context.content)
                startPush(request, deliver: deliver)
            case .sendSMS:
                let request = SMSRequest(key: context.key, msisdn: context.msisdn, content: context.content,
                                         validity: context.delivery.smsValidity)
                startSMS(request, deliver: deliver)
            case .terminatePush:
                let task = state.withLock { $0.pushTasks.removeValue(forKey: context.key) }
                task?.cancel()
            case .schedule, .cancel, .invalidateRegistration, .record, .report:
                break
            }
        }
    }

    private func startPush(_ request: PushRequest, deliver: @escaping Deliver) {
        let sender = push
        track(pushKey: request.key) {
            let verdicts = await sender.send(request)
            for target in request.targets {
                switch verdicts[target.deviceID] {
                case .accepted: await deliver(.pushAccepted(target.deviceID), request.key)
                case .rejected(let rejection): await deliver(.pushRejected(target.deviceID, rejection), request.key)
                case nil: break  // cancelled (terminated) before a verdict: nothing happened on the wire
                }
            }
        }
    }

    private func startSMS(_ request: SMSRequest, deliver: @escaping Deliver) {
        let sender = sms
        track(pushKey: nil) {
            switch await sender.submit(request) {
            case .submitted(let references):
                guard !references.isEmpty else {
                    await deliver(.smsReportReceived(.failed), request.key)  // a provider bug: nothing to match reports to
                    return
                }
                await deliver(.smsSubmitted(SMSSubmission(provider: sender.providerName, references: references)), request.key)
            case .rejected: await deliver(.smsReportReceived(.failed), request.key)
            }
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
