import Synchronization
import TandemCore

/// An in-process push service for `make run` and tests: takes every push after `latency`, except for
/// tokens that start with `dead` (answered like APNs 410 `Unregistered`, so the fallback path can be
/// tried without a real device). Keeps a log of what it accepted.
///
/// Not simulated: receipts — a real app acknowledges through the device API, and so must a tester.
public final class PushSimulator: PushSender {
    public struct Sent: Sendable, Hashable {
        public let key: DeliveryKey
        public let deviceID: DeviceID
        public let platform: Platform
        public let body: String
    }

    private let latency: Duration
    private let sent = Mutex<[Sent]>([])

    public init(latency: Duration = .milliseconds(5)) {
        self.latency = latency
    }

    public func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
        if latency > .zero {
            do {
                try await Task.sleep(for: latency)
            } catch {
                return [:]  // terminated while queued: nothing went out
            }
        }
        if Task.isCancelled { return [:] }
        var verdicts: [DeviceID: PushVerdict] = [:]
        for target in push.targets {
            if target.token.text.lowercased().hasPrefix("dead") {
                verdicts[target.deviceID] = .rejected(.tokenDead)
            } else {
                verdicts[target.deviceID] = .accepted
                sent.withLock { $0.append(Sent(key: push.key, deviceID: target.deviceID, platform: target.platform,
                                               body: push.content.body)) }
            }
        }
        return verdicts
    }

    public var log: [Sent] { sent.withLock { $0 } }
}
