import TandemCore

/// The engine's push sender: hands a delivery's iOS targets to APNs and its Android targets to FCM (in
/// parallel), and merges their verdicts.
///
/// A target whose platform has no provider here (Windows Phone always; iOS or Android when that provider
/// is not configured) is rejected as `.other`, so the scheduler falls back for it.
/// Not guaranteed: a verdict for every target when the task is cancelled (see ``PushSender``) — the
/// providers omit targets they did not send.
public struct PlatformPushSender: PushSender {
    private let apns: (any PushSender)?
    private let fcm: (any PushSender)?
    private let logger: Logger

    public init(apns: (any PushSender)?, fcm: (any PushSender)?, logger: Logger) {
        self.apns = apns
        self.fcm = fcm
        self.logger = logger
    }

    public func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
        var iOS: [PushTarget] = []
        var android: [PushTarget] = []
        var verdicts: [DeviceID: PushVerdict] = [:]
        for target in push.targets {
            switch target.platform {
            case .iOS: iOS.append(target)
            case .android: android.append(target)
            case .windowsPhone: reject(target, push, why: "no push provider for this platform", into: &verdicts)
            }
        }
        async let fromAPNs = forward(iOS, of: push, to: apns, into: "APNs")
        async let fromFCM = forward(android, of: push, to: fcm, into: "FCM")
        let (apnsVerdicts, fcmVerdicts) = await (fromAPNs, fromFCM)
        verdicts.merge(apnsVerdicts) { first, _ in first }
        verdicts.merge(fcmVerdicts) { first, _ in first }
        return verdicts
    }

    private func forward(_ targets: [PushTarget], of push: PushRequest, to sender: (any PushSender)?,
                         into provider: String) async -> [DeviceID: PushVerdict] {
        guard !targets.isEmpty else { return [:] }
        guard let sender else {
            var verdicts: [DeviceID: PushVerdict] = [:]
            for target in targets { reject(target, push, why: "\(provider) is not configured", into: &verdicts) }
            return verdicts
        }
        let part = PushRequest(key: push.key, recipient: push.recipient, targets: targets, policy: push.policy,
                               content: push.content)
        // A provider answers only for the targets it was given.
        let wanted = Set(targets.map(\.deviceID))
        return await sender.send(part).filter { wanted.contains($0.key) }
    }

    private func reject(_ target: PushTarget, _ push: PushRequest, why: String, into verdicts: inout [DeviceID: PushVerdict]) {
        logger.warning("push target rejected", ["reason": .string(why), "delivery": .int(push.key.rawValue),
                                                "device": .string(target.deviceID.description),
                                                "platform": .string(target.platform.rawValue)])
        verdicts[target.deviceID] = .rejected(.other)
    }
}
