extension DeliveryEvent {
    /// The event's name in the delivery's event log (`delivery_events.kind`).
    public var logKind: String {
        switch self {
        case .routed: "routed"
        case .pushAccepted: "pushAccepted"
        case .pushRejected: "pushRejected"
        case .deliveryAcknowledged: "deliveryAcknowledged"
        case .readReported: "readReported"
        case .timerFired: "timerFired"
        case .manualFallbackRequested: "manualFallbackRequested"
        case .supersededBySMS: "supersededBySMS"
        case .cancelledBySender: "cancelledBySender"
        case .smsSubmitted: "smsSubmitted"
        case .smsReportReceived: "smsReportReceived"
        case .smsPartReported: "smsPartReported"
        case .expired: "expired"
        }
    }

    /// The event's particulars for the log (`delivery_events.detail`): device, reason, timer, reference.
    public var logDetail: String {
        switch self {
        case .routed(let decision):
            switch decision {
            case .push(let plan): "push to \(plan.targets.map(\.deviceID.text).joined(separator: ",")) as \(plan.policy.messageType.wireName)"
            case .sms(let route): "sms (\(route.reason.rawValue)) as \(route.policy.messageType.wireName)"
            case .reject(let reason): "rejected (\(reason.rawValue))"
            }
        case .pushAccepted(let device), .deliveryAcknowledged(let device), .readReported(let device): device.text
        case .pushRejected(let device, let rejection): "\(device.text) \(rejection.rawValue)"
        case .timerFired(let kind): kind.rawValue
        case .manualFallbackRequested, .supersededBySMS, .cancelledBySender, .expired: ""
        case .smsSubmitted(let submission): "\(submission.provider) \(submission.references.joined(separator: ","))"
        case .smsReportReceived(let outcome): outcome.rawValue
        case .smsPartReported(let reference, let outcome): "\(reference) \(outcome.rawValue)"
        }
    }
}
