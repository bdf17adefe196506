/// One app install as the router sees it: which app, which number it verified, how to reach it.
public struct Registration: Sendable, Hashable {
    public let deviceID: DeviceID
    public let app: AppKey
    public let msisdn: MSISDN?
    public let platform: Platform
    public let pushToken: PushToken?
    public let status: RegistrationStatus
    /// False when the SDK reports that the user disabled notifications (spec: "Detect disabled notifications").
    public let notificationsEnabled: Bool
    /// Its own APNs environment (true: sandbox), nil for the app's (see ``PushTarget/apnsSandbox``).
    public let apnsSandbox: Bool?
    /// Its own APNs topic, nil for the app's (see ``PushTarget/apnsTopic``).
    public let apnsTopic: String?

    public init(deviceID: DeviceID, app: AppKey, msisdn: MSISDN?, platform: Platform, pushToken: PushToken?,
                status: RegistrationStatus, notificationsEnabled: Bool, apnsSandbox: Bool? = nil, apnsTopic: String? = nil) {
        self.apnsSandbox = apnsSandbox
        self.apnsTopic = apnsTopic
        self.deviceID = deviceID
        self.app = app
        self.msisdn = msisdn
        self.platform = platform
        self.pushToken = pushToken
        self.status = status
        self.notificationsEnabled = notificationsEnabled
    }

    /// Verified by PIN, with a push token, notifications on: a push can reach it.
    public var isPushable: Bool {
        status == .pinVerified && pushToken != nil && notificationsEnabled
    }

    /// The push target this registration is, with its APNs environment and topic; nil without a token.
    public var pushTarget: PushTarget? {
        pushToken.map { PushTarget(deviceID: deviceID, platform: platform, token: $0, apnsSandbox: apnsSandbox, apnsTopic: apnsTopic) }
    }
}
