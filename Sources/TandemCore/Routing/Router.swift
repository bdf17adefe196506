/// Decides, for one message and one recipient, whether to push, send an SMS, or reject (pure).
///
/// Rules, in order:
/// 1. `allowedChannels` naming only unsupported channels → reject (`noSupportedChannel`).
/// 2. An `appKey` that names no app → reject (`unknownApp`).
/// 3. The policy is the message's `appMessageType`, else the app's default type, else Default.
/// 4. Push when Push is allowed, there is an app, and the number has pushable installs of it (verified by
///    PIN, with a push token, notifications on): every such install is a target.
/// 5. Otherwise SMS when SMS is allowed — as the primary channel when no push was possible at all
///    (no app key, Push not allowed), or as the policy's push-failure fallback when the app exists but no
///    install can take a push (which the policy must allow, `fallback.onPushFailure`).
/// 6. Otherwise reject, saying why.
///
/// Not decided here: whether the account may use the app (the gateway checks that), or anything about a
/// registration beyond the fields of `Registration`.
public enum Router {
    public static func route(_ request: RoutingRequest, app: App?, registrations: [Registration],
                             policies: PolicySet) -> RoutingDecision {
        if case .only(let channels) = request.allowedChannels, channels.isEmpty {
            return .reject(.noSupportedChannel)
        }
        if request.appKey != nil && app == nil {
            return .reject(.unknownApp)
        }
        let policy = policies[request.messageType ?? app?.defaultMessageType ?? .default]
        let smsAllowed = request.allowedChannels.allows(.sms)

        guard request.allowedChannels.allows(.push) else {
            return .sms(SMSRoute(reason: .pushNotAllowed, policy: policy))
        }
        guard let app else {
            return smsAllowed ? .sms(SMSRoute(reason: .noAppKey, policy: policy)) : .reject(.noAppKey)
        }
        let installs = registrations.filter { $0.app == app.key }
        let targets = installs.compactMap { registration -> PushTarget? in
            guard registration.isPushable else { return nil }
            return registration.pushTarget
        }
        if !targets.isEmpty {
            return .push(PushPlan(targets: targets, policy: policy, smsAllowed: smsAllowed))
        }
        guard smsAllowed else { return .reject(.noPushableDevice) }
        guard policy.fallback.onPushFailure else { return .reject(.noFallback) }
        let onlyDisabled = installs.contains { $0.status == .pinVerified && $0.pushToken != nil && !$0.notificationsEnabled }
        return .sms(SMSRoute(reason: onlyDisabled ? .notificationsDisabled : .noPushableDevice, policy: policy))
    }

    /// The route of a message addressed to one registration directly (a push address, a device id): a push
    /// to it and never SMS (it has no number), if push is allowed and it can take one — a live token, not
    /// Invalid, notifications on; verification by PIN is not required, since the sender named the device.
    public static func route(_ request: RoutingRequest, app: App, registration: Registration,
                             policies: PolicySet) -> RoutingDecision {
        guard request.allowedChannels.allows(.push) else { return .reject(.noSupportedChannel) }
        let policy = policies[request.messageType ?? app.defaultMessageType]
        guard registration.app == app.key, registration.status != .invalid, registration.notificationsEnabled,
              let target = registration.pushTarget else { return .reject(.noPushableDevice) }
        return .push(PushPlan(targets: [target],
                              policy: policy, smsAllowed: false))
    }
}
