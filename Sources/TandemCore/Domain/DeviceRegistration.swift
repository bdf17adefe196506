/// One app install as the device API keeps it: who it is, how to reach it, and where its MSISDN
/// verification stands. ``routing`` is the slice the router reads.
public struct DeviceRegistration: Sendable, Hashable {
    public let deviceID: DeviceID
    public let app: AppKey
    public var platform: Platform
    /// The SDK's `User-Agent`, as last sent.
    public var userAgent: String
    public var pushToken: PushToken?
    /// False when the SDK reports that the user disabled notifications (Tandem's `NotificationsEnabled`).
    public var notificationsEnabled: Bool
    public var verification: Verification
    /// The SDK's `Development` mode (iOS): true sends this install's pushes to APNs' sandbox; nil (never
    /// set, or set false) leaves it to the app's credentials.
    public var apnsSandbox: Bool?
    public let createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(deviceID: DeviceID, app: AppKey, platform: Platform, userAgent: String, pushToken: PushToken?,
                notificationsEnabled: Bool, verification: Verification, createdAt: Timestamp, updatedAt: Timestamp,
                apnsSandbox: Bool? = nil) {
        self.apnsSandbox = apnsSandbox
        self.deviceID = deviceID
        self.app = app
        self.platform = platform
        self.userAgent = userAgent
        self.pushToken = pushToken
        self.notificationsEnabled = notificationsEnabled
        self.verification = verification
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var status: RegistrationStatus { verification.status }
    public var msisdn: MSISDN? { verification.msisdn }

    public var routing: Registration {
        Registration(deviceID: deviceID, app: app, msisdn: msisdn, platform: platform, pushToken: pushToken,
                     status: status, notificationsEnabled: notificationsEnabled, apnsSandbox: apnsSandbox)
    }

    /// The number this install proved it holds: set, and verified (an `Invalid` registration lost its push
    /// token, not its number). What its inbox and receipts are scoped to.
    public var verifiedNumber: MSISDN? {
        status == .pinVerified || status == .invalid ? msisdn : nil
    }

    /// The spec's `RegisteredForPushNotification`: a push can reach this install now.
    public var registeredForPush: Bool { routing.isPushable }
}
