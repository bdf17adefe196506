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

    public init(deviceID: DeviceID, app: AppKey, msisdn: MSISDN?, platform: Platform, pushToken: PushToken?,
                status: RegistrationStatus, notificationsEnabled: Bool) {
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
}
