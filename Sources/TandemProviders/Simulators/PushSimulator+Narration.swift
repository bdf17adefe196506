import TandemCore

extension PushSimulator {
    /// One info line per target, saying in words what will happen next — the log a newcomer reads to see a
    /// fallback happen. The number is masked and the token cut to its first characters.
    func narrate(_ push: PushRequest, _ target: PushTarget, _ behaviour: Configuration.SimulatedPushBehaviour,
                 receiptsOn: Bool) {
        guard logger.minimumLevel <= .info else { return }
        let fields: KeyValuePairs<String, Logger.Value> = [
            "delivery": .int(push.key.rawValue), "device": .string(target.deviceID.description),
            "token": .string(target.token.description), "recipient": .string(push.recipient.description),
            "behaviour": .string(behaviour.name.rawValue),
        ]
        logger.info(Self.sentence(for: behaviour, receiptsOn: receiptsOn), fields)
    }

    static func sentence(for behaviour: Configuration.SimulatedPushBehaviour, receiptsOn: Bool) -> String {
        let noReceipts = "simulated push accepted; simulated receipts are off here, so only a real app's receipts count"
        switch behaviour {
        case .ack(let after):
            guard receiptsOn else { return noReceipts }
            return "simulated push accepted; the app will acknowledge it in \(after.spoken) and never report it read"
                + " (a no-read fallback, if the policy has one, sends an SMS)"
        case .ackAndRead(let ackAfter, let readAfter):
            guard receiptsOn else { return noReceipts }
            return "simulated push accepted; the app will acknowledge it in \(ackAfter.spoken)"
                + " and report it read \(readAfter.spoken) later"
        case .neverAck:
            return "simulated push accepted; the app will never acknowledge it, so the policy's no-ack fallback"
                + " (usually an SMS) takes over"
        case .tokenDead:
            return "simulated push refused: the token is dead (like APNs 410 Unregistered); the registration is"
                + " marked invalid and the policy falls back (usually to SMS)"
        case .transientFailure:
            return "simulated push refused: the push service kept failing (like APNs 503); the policy falls back"
                + " (usually to SMS)"
        }
    }

    static func fields(_ pending: PendingReceipt) -> KeyValuePairs<String, Logger.Value> {
        ["delivery": .int(pending.key.rawValue), "device": .string(pending.device.description)]
    }
}
