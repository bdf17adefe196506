/// Where a recipient's message goes first.
public enum RoutingDecision: Sendable, Hashable {
    /// Push to every target; the policy governs TTL, timers and fallback.
    case push(PushPlan)
    /// SMS straight away (no push is possible, or none is allowed).
    case sms(SMSRoute)
    /// Neither channel can take the message: it ends as Rejected.
    case reject(RejectReason)
}

/// A push to every pushable device of the recipient.
public struct PushPlan: Sendable, Hashable, Codable {
    public var targets: [PushTarget]
    public var policy: Policy
    /// Whether `allowedChannels` lets the delivery fall back to SMS.
    public var smsAllowed: Bool

    public init(targets: [PushTarget], policy: Policy, smsAllowed: Bool) {
        self.targets = targets
        self.policy = policy
        self.smsAllowed = smsAllowed
    }
}

/// One device a push goes to.
public struct PushTarget: Sendable, Hashable, Codable {
    public let deviceID: DeviceID
    public let platform: Platform
    public let token: PushToken
    /// The registration's own APNs environment: true sends to APNs' sandbox host, false to production; nil
    /// (every registration that does not say) uses the app's credentials' `sandbox`. Ignored off iOS.
    public let apnsSandbox: Bool?
    /// The registration's own `apns-topic` (a cospace token's `apns_topic`, e.g. a VoIP topic); nil uses the
    /// app's credentials' topic. Ignored off iOS.
    public let apnsTopic: String?

    public init(deviceID: DeviceID, platform: Platform, token: PushToken, apnsSandbox: Bool? = nil, apnsTopic: String? = nil) {
        self.deviceID = deviceID
        self.platform = platform
        self.token = token
        self.apnsSandbox = apnsSandbox
        self.apnsTopic = apnsTopic
    }
}

/// An SMS route and why the message did not go by push.
public struct SMSRoute: Sendable, Hashable {
    public var reason: SMSReason
    public var policy: Policy

    public init(reason: SMSReason, policy: Policy) {
        self.reason = reason
        self.policy = policy
    }
}

public enum SMSReason: String, Sendable, Hashable, Codable {
    /// The sender gave no `appKey`: a plain SMS.
    case noAppKey
    /// `allowedChannels` excludes Push.
    case pushNotAllowed
    /// The number has no verified install of the app with a live push token.
    case noPushableDevice
    /// The number's verified installs all have notifications disabled.
    case notificationsDisabled
}

public enum RejectReason: String, Sendable, Hashable, Codable {
    /// `allowedChannels` named only channels Tandem does not carry.
    case noSupportedChannel
    /// The `appKey` names no app (of this account).
    case unknownApp
    /// Push only, and the number has no pushable install.
    case noPushableDevice
    /// Push only, and no `appKey` was given.
    case noAppKey
    /// Push was impossible and the policy does not fall back to SMS on push failure.
    case noFallback
    /// Only SMS could take it, and the sending account's country rule refuses the number's region.
    case smsCountryNotAllowed
}
