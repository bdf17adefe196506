import Synchronization

/// What the TIBCO BWMI API (`/bwmi/{appKey}/`) keeps: its devices (registrations with a claimed phone and
/// email), its managed notifications and their acknowledgements, and each app's BWMI settings.
///
/// Devices are registrations of their app (one registry knows every token: a token a provider declares
/// dead is Invalid for every API). Not guaranteed: that a notification row is written in the same
/// transaction as its delivery (the service records it right after the intake's commit).
public protocol BWMIRegistry: Sendable {
    /// The app's settings; the defaults when none were set.
    func bwmiSettings(app: AppKey) async throws -> BWMIAppSettings
    /// The app with this key and its settings, as last committed — by this process or another (`tandem app bwmi`,
    /// `tandem app delete`); nil when no app has this key. What the app endpoints look up per request.
    func bwmiApp(key: AppKey) async throws -> BWMIApp?
    /// False when no app has this key.
    func setBWMISettings(app: AppKey, _ settings: BWMIAppSettings) async throws -> Bool
    /// Creates or updates the app's registration holding `token` (re-enabling a deregistered or
    /// invalidated one) and its phone and email.
    func registerBWMIDevice(app: AppKey, platform: Platform, token: PushToken, phone: MSISDN?, email: String?,
                            at: Timestamp) async throws -> BWMIDevice
    /// Turns notifications off for the app's registration holding `token`; false when there is none.
    func deregisterBWMIDevice(app: AppKey, token: PushToken, at: Timestamp) async throws -> Bool
    /// The app's BWMI device holding `token`, whatever its state.
    func bwmiDevice(app: AppKey, token: PushToken) async throws -> BWMIDevice?
    /// The app's BWMI devices whose claimed phone is `phone`, or whose email is `email`.
    func bwmiDevices(app: AppKey, phone: MSISDN) async throws -> [BWMIDevice]
    func bwmiDevices(app: AppKey, email: String) async throws -> [BWMIDevice]
    /// How many managed notifications of the device are live at `now`.
    func liveBWMICount(device: BWMIDevice, at now: Timestamp) async throws -> Int
    /// The device's live managed notifications at `now`, oldest first.
    func liveBWMINotifications(device: BWMIDevice, at now: Timestamp) async throws -> [BWMINotification]
    func recordBWMINotifications(_ notifications: [BWMINotification]) async throws
    /// Marks the device's notification `delivery` acknowledged (idempotent). `hybrid`: a delivery without a
    /// row (it reached the device through its phone, or its row is not recorded yet) gets one now, not
    /// pending, already acknowledged; a row recorded later for it stays acknowledged.
    func acknowledgeBWMI(delivery: DeliveryKey, device: BWMIDevice, at now: Timestamp,
                         hybrid: Bool) async throws -> BWMIAcknowledgement
    /// ``bwmiApp(key:)`` and ``bwmiDevice(app:token:)`` when the backend can answer them without waiting (SQLite:
    /// its caches, else a page-cache read; a server backend: caches it keeps current); nil when only the
    /// asynchronous read can. What an ack, answered on the HTTP worker thread without a task, looks up first.
    func cachedBWMIApp(key: AppKey) throws -> BWMIApp??
    func cachedBWMIDevice(app: AppKey, token: PushToken) throws -> BWMIDevice??
}

extension BWMIRegistry {
    /// Never answered without waiting: callers take ``bwmiApp(key:)``.
    public func cachedBWMIApp(key: AppKey) throws -> BWMIApp?? { nil }
    /// Never answered without waiting: callers take ``bwmiDevice(app:token:)``.
    public func cachedBWMIDevice(app: AppKey, token: PushToken) throws -> BWMIDevice?? { nil }
}

/// An app's BWMI settings (CLI `tandem app bwmi`, admin API `PUT /admin/apps/{key}/bwmi`).
public struct BWMIAppSettings: Sendable, Hashable {
    /// `bwmi.trustPhones`: the app's devices count as verified installs of the phone they claim, so MSISDN
    /// messages for the app (CM `MESSAGES`, SCG phone recipients) push to them. Default off.
    public var trustPhones: Bool
    /// `bwmi.staticKey`: when set, every request to the app's device endpoints must carry it in `X-BWMI-Key`.
    public var staticKey: String?

    public init(trustPhones: Bool = false, staticKey: String? = nil) {
        self.trustPhones = trustPhones
        self.staticKey = staticKey
    }
}

/// An app and its BWMI settings.
public struct BWMIApp: Sendable, Hashable {
    public let app: App
    public let settings: BWMIAppSettings

    public init(app: App, settings: BWMIAppSettings) {
        self.app = app
        self.settings = settings
    }
}

/// A registration a BWMI app made by token.
public struct BWMIDevice: Sendable, Hashable {
    public let deviceID: DeviceID
    public let app: AppKey
    public let platform: Platform
    public let token: PushToken
    public let phone: MSISDN?
    public let email: String?
    /// Registered and not declared dead by its provider: what may receive pushes and have pending notifications.
    public let active: Bool

    public init(deviceID: DeviceID, app: AppKey, platform: Platform, token: PushToken, phone: MSISDN?, email: String?,
                active: Bool) {
        self.deviceID = deviceID
        self.app = app
        self.platform = platform
        self.token = token
        self.phone = phone
        self.email = email
        self.active = active
    }
}

/// A managed notification of one device: its `nid` is the delivery's update id.
public struct BWMINotification: Sendable, Hashable {
    public let delivery: DeliveryKey
    public let device: DeviceID
    public let text: String
    public let bid: String?
    public let sentAt: Timestamp
    public let expiresAt: Timestamp

    public init(delivery: DeliveryKey, device: DeviceID, text: String, bid: String?, sentAt: Timestamp, expiresAt: Timestamp) {
        self.delivery = delivery
        self.device = device
        self.text = text
        self.bid = bid
        self.sentAt = sentAt
        self.expiresAt = expiresAt
    }
}

public enum BWMIAcknowledgement: Sendable, Hashable {
    /// Was live, now is not.
    case acknowledged
    /// Already acknowledged (or expired): nothing changed.
    case alreadyAcknowledged
    /// The device has no notification with this id.
    case unknown
}

/// A BWMI acknowledgement written in the same transaction as the read receipt it comes with
/// (``DeliveryStore/queueCommit(requests:inserts:changes:acknowledgements:chain:)``), so that an ack costs one
/// durable write, not one for the row and one for the receipt: the device's notification `delivery` is marked
/// acknowledged at `at` — or, with no row, gets one already acknowledged (as ``BWMIRegistry/acknowledgeBWMI(delivery:device:at:hybrid:)``
/// with `hybrid`: it rides only with a receipt the scheduler applied as this device's, or as its phone's for an app
/// that trusts phones).
///
/// ``outcome`` is set inside the transaction; read it once the commit succeeded (before, or after a failed commit,
/// it means nothing).
public final class BWMIAcknowledgementWrite: Sendable {
    public let delivery: DeliveryKey
    public let device: DeviceID
    public let at: Timestamp
    private let result = Mutex<(outcome: BWMIAcknowledgement, liveCount: Int?)>((.unknown, nil))

    public init(delivery: DeliveryKey, device: DeviceID, at: Timestamp) {
        self.delivery = delivery
        self.device = device
        self.at = at
    }

    /// What the write found: `acknowledged` (a live row, or none: one was inserted), `alreadyAcknowledged` (acknowledged
    /// or expired before), `unknown` (the device has no registration).
    public var outcome: BWMIAcknowledgement {
        get { result.withLock { $0.outcome } }
        set { result.withLock { $0.outcome = newValue } }
    }

    /// The device's live count at `at` just after an `acknowledged` outcome, counted in the same transaction (the
    /// badge update's first count, no read of its own); nil when the store did not count it.
    public var liveCount: Int? {
        get { result.withLock { $0.liveCount } }
        set { result.withLock { $0.liveCount = newValue } }
    }
}
