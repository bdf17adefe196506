import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every backend's BWMI registry must do (``BWMIRegistry``): each test runs against
/// SQLite and PostgreSQL. (Acknowledgements riding with a read receipt: `DeliveryStoreContractTests`.)
@Suite("BWMI registry contract")
struct BWMIContractTests {
    static let token = PushToken("bwmi-token-1")!
    static let phone = MSISDN("+31612345678")!

    private func withRegistry(_ backend: Backend, _ body: (any StoreUnderTest, any BWMIRegistry) async throws -> Void) async throws {
        let store = try await backend.open()
        do {
            try await PortFixture.insertApps(store)
            try await body(store, try #require(store.database as? any BWMIRegistry))
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test("settings: defaults until set, set per app, unknown apps refused; the app is read with them", arguments: Backend.allCases)
    func settings(_ backend: Backend) async throws {
        try await withRegistry(backend) { _, registry in
            #expect(try await registry.bwmiSettings(app: PortFixture.app) == BWMIAppSettings())
            #expect(try await registry.bwmiApp(key: PortFixture.app)?.settings == BWMIAppSettings())
            #expect(try await !registry.setBWMISettings(app: PortFixture.unknownApp, BWMIAppSettings(trustPhones: true)))
            #expect(try await registry.bwmiApp(key: PortFixture.unknownApp) == nil)
            let set = BWMIAppSettings(trustPhones: true, staticKey: "k-1")
            #expect(try await registry.setBWMISettings(app: PortFixture.app, set))
            #expect(try await registry.bwmiSettings(app: PortFixture.app) == set)
            #expect(try await registry.bwmiSettings(app: PortFixture.otherApp) == BWMIAppSettings())
            let app = try #require(try await registry.bwmiApp(key: PortFixture.app))
            #expect(app.settings == set && app.app.key == PortFixture.app && app.app.account == PortFixture.account)
            #expect(app.app.name == "App" && app.app.createdAt == 2 && app.app.defaultMessageType == .default)
            #expect(try await registry.setBWMISettings(app: PortFixture.app, BWMIAppSettings()))
            #expect(try await registry.bwmiApp(key: PortFixture.app)?.settings == BWMIAppSettings())
        }
    }

    @Test("devices: registered once per app and token, updated in place, deregistered, revived; found by token, phone and email",
          arguments: Backend.allCases)
    func devices(_ backend: Backend) async throws {
        try await withRegistry(backend) { store, registry in
            let app = PortFixture.app
            await #expect(throws: (any Error).self) {
                _ = try await registry.registerBWMIDevice(app: PortFixture.unknownApp, platform: .iOS, token: Self.token, phone: nil,
                                                          email: nil, at: Fixture.t0)
            }
            #expect(try await store.count("registrations") == 0)
            let device = try await registry.registerBWMIDevice(app: app, platform: .iOS, token: Self.token, phone: Self.phone,
                                                               email: "a@example.com", at: Fixture.t0)
            #expect(device.app == app && device.platform == .iOS && device.token == Self.token && device.phone == Self.phone)
            #expect(device.email == "a@example.com" && device.active)
            #expect(try await store.scalar("SELECT origin || '/' || status FROM registrations") == "bwmi/Unverified")
            #expect(try await registry.bwmiDevice(app: app, token: Self.token) == device)
            #expect(try await registry.bwmiDevice(app: PortFixture.otherApp, token: Self.token) == nil)
            #expect(try await registry.bwmiDevices(app: app, phone: Self.phone) == [device])
            #expect(try await registry.bwmiDevices(app: app, email: "a@example.com") == [device])
            #expect(try await registry.bwmiDevices(app: PortFixture.otherApp, phone: Self.phone).isEmpty)

            // The same token again: the same device, its phone and email replaced.
            let again = try await registry.registerBWMIDevice(app: app, platform: .android, token: Self.token, phone: nil,
                                                              email: "b@example.com", at: Fixture.t0 + .seconds(1))
            #expect(again.deviceID == device.deviceID && again.platform == .android && again.phone == nil && again.email == "b@example.com")
            #expect(try await registry.bwmiDevices(app: app, phone: Self.phone).isEmpty)
            #expect(try await store.count("registrations") == 1)
            #expect(try await store.count("bwmi_devices") == 1)

            #expect(try await !registry.deregisterBWMIDevice(app: app, token: PushToken("nobody")!, at: Fixture.t0))
            #expect(try await !registry.deregisterBWMIDevice(app: PortFixture.otherApp, token: Self.token, at: Fixture.t0))
            // Each lookup sees the store's own last write at once (a backend that caches them invalidates on commit).
            #expect(try await registry.bwmiDevice(app: app, token: Self.token)?.active == true)
            #expect(try await registry.deregisterBWMIDevice(app: app, token: Self.token, at: Fixture.t0 + .seconds(2)))
            #expect(try await registry.bwmiDevices(app: app, email: "b@example.com").map(\.active) == [false])
            #expect(try await registry.bwmiDevice(app: app, token: Self.token)?.active == false)
            #expect(try await registry.registerBWMIDevice(app: app, platform: .android, token: Self.token, phone: nil,
                                                          email: "c@example.com", at: Fixture.t0 + .seconds(3)).active)

            // Declared dead by its provider: inactive; registering again revives it.
            try await store.execute("UPDATE registrations SET status = 'Invalid'")
            #expect(try await registry.bwmiDevices(app: app, email: "c@example.com").map(\.active) == [false])
            let revived = try await registry.registerBWMIDevice(app: app, platform: .android, token: Self.token, phone: Self.phone,
                                                                email: nil, at: Fixture.t0 + .seconds(4))
            #expect(revived.deviceID == device.deviceID && revived.active)
            #expect(try await registry.bwmiDevice(app: app, token: Self.token) == revived)
            #expect(try await store.scalar("SELECT status FROM registrations") == "Unverified")

            // A token an SDK install of the app holds becomes a BWMI device of that registration.
            let install = try Fixture.device(9)
            try await PortFixture.insertInstall(store, device: install, app: app, token: "sdk-token")
            #expect(try await registry.registerBWMIDevice(app: app, platform: .android, token: PushToken("sdk-token")!, phone: nil,
                                                          email: nil, at: Fixture.t0).deviceID == install)
        }
    }

    @Test("notifications: recorded once per delivery and device, live until acknowledged or expired, oldest first; acknowledgements say what they found",
          arguments: Backend.allCases)
    func notifications(_ backend: Backend) async throws {
        try await withRegistry(backend) { store, registry in
            let app = PortFixture.app
            let device = try await registry.registerBWMIDevice(app: app, platform: .iOS, token: Self.token, phone: nil, email: nil,
                                                               at: Fixture.t0)
            let records = try (1...4).map { n in
                try Fixture.pushed(to: [device.deviceID], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
            }
            let keys = try await store.deliveries.commit(inserts: records, changes: [])
            let t0 = Fixture.t0
            func notification(_ index: Int, sent: Timestamp, expires: Timestamp) -> BWMINotification {
                BWMINotification(delivery: keys[index], device: device.deviceID, text: "text \(index)", bid: index == 0 ? "b-0" : nil,
                                 sentAt: sent, expiresAt: expires)
            }
            let unregistered = BWMINotification(delivery: keys[3], device: try Fixture.device(77), text: "", bid: nil, sentAt: t0,
                                                expiresAt: t0 + .seconds(60))
            try await registry.recordBWMINotifications([
                notification(1, sent: t0 + .seconds(1), expires: t0 + .seconds(60)),
                notification(0, sent: t0, expires: t0 + .seconds(60)),
                notification(2, sent: t0 + .seconds(2), expires: t0 + .seconds(10)),
                unregistered,
            ])
            // Recorded again (a retry): the rows stay as they are.
            try await registry.recordBWMINotifications([notification(0, sent: t0 + .seconds(5), expires: t0 + .seconds(6))])
            try await registry.recordBWMINotifications([])
            #expect(try await store.count("bwmi_notifications") == 3)
            let live = try await registry.liveBWMINotifications(device: device, at: t0 + .seconds(5))
            #expect(live == [notification(0, sent: t0, expires: t0 + .seconds(60)), notification(1, sent: t0 + .seconds(1), expires: t0 + .seconds(60)),
                             notification(2, sent: t0 + .seconds(2), expires: t0 + .seconds(10))])
            #expect(try await registry.liveBWMICount(device: device, at: t0 + .seconds(5)) == 3)
            // Expiry: the third is no longer live at its expiry.
            #expect(try await registry.liveBWMICount(device: device, at: t0 + .seconds(10)) == 2)

            let at = t0 + .seconds(20)
            #expect(try await registry.acknowledgeBWMI(delivery: keys[0], device: device, at: at, hybrid: false) == .acknowledged)
            #expect(try await registry.acknowledgeBWMI(delivery: keys[0], device: device, at: at, hybrid: false) == .alreadyAcknowledged)
            #expect(try await registry.acknowledgeBWMI(delivery: keys[2], device: device, at: at, hybrid: false) == .alreadyAcknowledged)  // expired
            #expect(try await registry.acknowledgeBWMI(delivery: keys[3], device: device, at: at, hybrid: false) == .unknown)
            #expect(try await registry.liveBWMINotifications(device: device, at: at).map(\.delivery) == [keys[1]])
            // Hybrid: a delivery without a row gets one, acknowledged; recorded later, it stays acknowledged.
            #expect(try await registry.acknowledgeBWMI(delivery: keys[3], device: device, at: at, hybrid: true) == .acknowledged)
            #expect(try await registry.acknowledgeBWMI(delivery: keys[3], device: device, at: at, hybrid: true) == .alreadyAcknowledged)
            try await registry.recordBWMINotifications([notification(3, sent: at, expires: at + .seconds(60))])
            #expect(try await registry.liveBWMICount(device: device, at: at) == 1)
            // A device without a registration has nothing to acknowledge.
            let stranger = BWMIDevice(deviceID: try Fixture.device(78), app: app, platform: .iOS, token: PushToken("x")!, phone: nil,
                                      email: nil, active: true)
            #expect(try await registry.acknowledgeBWMI(delivery: keys[1], device: stranger, at: at, hybrid: true) == .unknown)
            #expect(try await registry.liveBWMICount(device: stranger, at: at) == 0)
            #expect(try await store.count("bwmi_notifications") == 4)
        }
    }
}
