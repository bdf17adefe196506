import TandemCore
import TandemStore

/// The store as a backend that answers no read without waiting: the ports' synchronous probes keep their
/// default (nil), as on a server database whose caches do not hold the row, so every caller that probes first
/// must take the asynchronous read.
struct WaitingBackend: DeviceRegistry, SenderDirectory {
    let store: Store

    func registration(_ device: DeviceID) async throws -> DeviceRegistration? { try store.registration(device) }
    func create(_ registration: DeviceRegistration) async throws { try await store.create(registration) }
    func update<T: Sendable>(_ device: DeviceID, _ change: @escaping @Sendable (inout DeviceRegistration) -> T) async throws -> T? {
        try await store.update(device, change)
    }
    func receiptTarget(_ key: DeliveryKey) async throws -> ReceiptTarget? { try store.receiptTarget(key) }
    func inbox(app: AppKey, msisdn: MSISDN, query: ODataQuery) async throws -> [InboxMessage] {
        try store.inbox(app: app, msisdn: msisdn, query: query)
    }

    func accounts() async throws -> [Account] { try store.accounts() }
    func account(productToken: ProductToken) async throws -> Account? { try store.account(productToken: productToken) }
    func app(key: AppKey) async throws -> App? { try store.app(key: key) }
    func registrations(app: AppKey, msisdns: [MSISDN]) async throws -> [MSISDN: [Registration]] {
        try store.registrations(app: app, msisdns: msisdns)
    }
    func app(account: ProductToken, senderID: String) async throws -> App? { try store.app(account: account, senderID: senderID) }
    func registration(app: AppKey, device: DeviceID) async throws -> Registration? { try store.registration(app: app, device: device) }
    func rendersBWMIPushes(app: AppKey) async throws -> Bool { try await store.rendersBWMIPushes(app: app) }
}

extension WaitingBackend: BWMIRegistry {
    func bwmiSettings(app: AppKey) async throws -> BWMIAppSettings { try store.bwmiSettings(app: app) }
    func bwmiApp(key: AppKey) async throws -> BWMIApp? { try store.bwmiApp(key: key) }
    func setBWMISettings(app: AppKey, _ settings: BWMIAppSettings) async throws -> Bool { try await store.setBWMISettings(app: app, settings) }
    func registerBWMIDevice(app: AppKey, platform: Platform, token: PushToken, phone: MSISDN?, email: String?,
                            at: Timestamp) async throws -> BWMIDevice {
        try await store.registerBWMIDevice(app: app, platform: platform, token: token, phone: phone, email: email, at: at)
    }
    func deregisterBWMIDevice(app: AppKey, token: PushToken, at: Timestamp) async throws -> Bool {
        try await store.deregisterBWMIDevice(app: app, token: token, at: at)
    }
    func bwmiDevice(app: AppKey, token: PushToken) async throws -> BWMIDevice? { try store.bwmiDevice(app: app, token: token) }
    func bwmiDevices(app: AppKey, phone: MSISDN) async throws -> [BWMIDevice] { try store.bwmiDevices(app: app, phone: phone) }
    func bwmiDevices(app: AppKey, email: String) async throws -> [BWMIDevice] { try store.bwmiDevices(app: app, email: email) }
    func liveBWMICount(device: BWMIDevice, at now: Timestamp) async throws -> Int { try store.liveBWMICount(device: device, at: now) }
    func liveBWMINotifications(device: BWMIDevice, at now: Timestamp) async throws -> [BWMINotification] {
        try store.liveBWMINotifications(device: device, at: now)
    }
    func recordBWMINotifications(_ notifications: [BWMINotification]) async throws { try await store.recordBWMINotifications(notifications) }
    func acknowledgeBWMI(delivery: DeliveryKey, device: BWMIDevice, at now: Timestamp, hybrid: Bool) async throws -> BWMIAcknowledgement {
        try await store.acknowledgeBWMI(delivery: delivery, device: device, at: now, hybrid: hybrid)
    }
}
