import Synchronization
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore

@Suite("Registration cache")
struct RegistrationCacheTests {
    static func registration(_ device: DeviceID, userAgent: String = "App/1 (iOS 17)") -> DeviceRegistration {
        DeviceRegistration(deviceID: device, app: Fixture.appKey, platform: .iOS, userAgent: userAgent, pushToken: nil,
                           notificationsEnabled: true, verification: Verification(), createdAt: Fixture.t0, updatedAt: Fixture.t0)
    }

    /// Counts its loads; answers with `registration` for known devices.
    final class Loader: Sendable {
        let loads = Mutex(0)
        let known: Set<DeviceID>
        let during: @Sendable () -> Void

        init(known: Set<DeviceID>, during: @escaping @Sendable () -> Void = {}) {
            self.known = known
            self.during = during
        }

        func load(_ device: DeviceID) throws(StoreError) -> DeviceRegistration? {
            loads.withLock { $0 += 1 }
            during()
            return known.contains(device) ? RegistrationCacheTests.registration(device) : nil
        }
    }

    @Test("a registration is read once and then served from memory; unknown devices are read every time")
    func caches() throws {
        let (d1, d2) = (try Fixture.device(1), try Fixture.device(2))
        let cache = RegistrationCache(capacity: 10)
        let loader = Loader(known: [d1])
        for _ in 0..<3 { #expect(try cache.registration(d1, load: loader.load)?.deviceID == d1) }
        for _ in 0..<3 { #expect(try cache.registration(d2, load: loader.load) == nil) }
        #expect(loader.loads.withLock { $0 } == 4)
        cache.invalidate([d1])
        #expect(try cache.registration(d1, load: loader.load)?.deviceID == d1)
        #expect(loader.loads.withLock { $0 } == 5)
        cache.invalidateAll()
        #expect(cache.count == 0)
    }

    @Test("a read that an invalidation overtook is returned but not cached")
    func raceWithInvalidation() throws {
        let d1 = try Fixture.device(1)
        let cache = RegistrationCache(capacity: 10)
        // The invalidation of another device's commit lands while d1 is being read: what was read may predate
        // a commit that changed d1 as well, so it is not kept.
        let racing = Loader(known: [d1], during: { [cache] in cache.invalidate([]) })
        #expect(try cache.registration(d1, load: racing.load) != nil)
        #expect(cache.count == 0)
        let calm = Loader(known: [d1])
        #expect(try cache.registration(d1, load: calm.load) != nil)
        #expect(cache.count == 1)
    }

    @Test("bounded: at capacity an entry makes room; capacity 0 keeps nothing")
    func bounded() throws {
        let devices = try (1...5).map { try Fixture.device($0) }
        let cache = RegistrationCache(capacity: 3)
        let loader = Loader(known: Set(devices))
        for device in devices { _ = try cache.registration(device, load: loader.load) }
        #expect(cache.count == 3)
        let none = RegistrationCache(capacity: 0)
        for _ in 0..<2 { _ = try none.registration(devices[0], load: loader.load) }
        #expect(none.count == 0)
        #expect(loader.loads.withLock { $0 } == 7)
    }

    @Test("the store's writes invalidate: an update, and a push token taken from another registration")
    func storeWrites() async throws {
        try await withTemporaryDirectory { dir in
            let store = try await openDeliveryStore(dir).store
            let (d1, d2) = (try Fixture.device(1), try Fixture.device(2))
            try await insertRegistrations(store, devices: [d1, d2])
            let token = try #require(try store.registration(d1)?.pushToken)
            #expect(try store.registration(d2)?.pushToken != token)
            #expect(store.registrations.count == 2)

            _ = try await store.update(d1) { $0.userAgent = "App/2 (iOS 18)" }
            #expect(try store.registration(d1)?.userAgent == "App/2 (iOS 18)")
            // d2 takes d1's token: d1, cached, loses it in the same commit.
            #expect(try store.registration(d1)?.pushToken == token)
            _ = try await store.update(d2) { $0.pushToken = token }
            #expect(try store.registration(d2)?.pushToken == token)
            #expect(try store.registration(d1)?.pushToken == nil)
            // A new registration taking it back.
            let d3 = try Fixture.device(3)
            var fresh = Self.registration(d3)
            fresh.pushToken = token
            try await store.create(fresh)
            #expect(try store.registration(d2)?.pushToken == nil)
            #expect(try store.registration(d3)?.pushToken == token)
            await store.close()
        }
    }

    @Test("BWMI devices by token: read once, then from memory; forgotten with their device or all; unknown tokens not kept")
    func bwmiDevices() throws {
        let (d1, d2) = (try Fixture.device(1), try Fixture.device(2))
        let (t1, t2) = (try #require(PushToken("token-one")), try #require(PushToken("token-two")))
        let cache = RegistrationCache(capacity: 10)
        let loads = Mutex(0)
        func device(_ id: DeviceID, _ token: PushToken) -> BWMIDevice {
            BWMIDevice(deviceID: id, app: Fixture.appKey, platform: .iOS, token: token, phone: nil, email: nil, active: true)
        }
        func load(_ found: BWMIDevice?) -> () throws(StoreError) -> BWMIDevice? {
            { () throws(StoreError) -> BWMIDevice? in
                loads.withLock { $0 += 1 }
                return found
            }
        }
        for _ in 0..<3 { #expect(try cache.bwmiDevice(app: Fixture.appKey, token: t1, load: load(device(d1, t1))) == device(d1, t1)) }
        for _ in 0..<2 { #expect(try cache.bwmiDevice(app: Fixture.appKey, token: t2, load: load(nil)) == nil) }
        #expect(loads.withLock { $0 } == 3)
        #expect(cache.bwmiCount == 1)
        // Another device's invalidation leaves it; its own forgets it.
        cache.invalidate([d2])
        #expect(cache.bwmiCount == 1)
        cache.invalidate([d1])
        #expect(cache.bwmiCount == 0)
        // An invalidation that overtakes the read: returned, not kept.
        #expect(try cache.bwmiDevice(app: Fixture.appKey, token: t1, load: { () throws(StoreError) -> BWMIDevice? in
            cache.invalidate([])
            return device(d1, t1)
        }) == device(d1, t1))
        #expect(cache.bwmiCount == 0)
        _ = try cache.bwmiDevice(app: Fixture.appKey, token: t1, load: load(device(d1, t1)))
        #expect(cache.bwmiCount == 1)
        cache.invalidateAll()
        #expect(cache.bwmiCount == 0)
    }
}
