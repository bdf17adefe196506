import TandemCore
import Testing
@testable import TandemStore
import TandemTestSupport

@Suite("BWMI live notifications held by the writer")
struct BWMILiveNotificationsTests {
    typealias Live = BWMILiveNotifications.Live

    @Test("a device is loaded once, then counted from what is held; only held devices change; expired ones drop out")
    func holding() throws {
        let live = BWMILiveNotifications(capacity: 10)
        let (a, b) = (try Fixture.device(1), try Fixture.device(2))
        var loads = 0
        func load() -> [Live] {
            loads += 1
            return [Live(delivery: 1, expires: 100), Live(delivery: 2, expires: 200), Live(delivery: 3, expires: 50)]
        }
        #expect(live.heldCount(a, at: Timestamp(milliseconds: 0)) == nil)
        #expect(try live.count(a, at: Timestamp(milliseconds: 60), load: load) == 2)  // 3 expired at 50
        #expect(try live.count(a, at: Timestamp(milliseconds: 60), load: load) == 2)
        #expect(loads == 1)
        live.recorded(a, Live(delivery: 4, expires: 300))
        live.recorded(a, Live(delivery: 4, expires: 300))  // recorded once
        live.recorded(b, Live(delivery: 5, expires: 300))  // not held: nothing to change
        #expect(live.heldCount(a, at: Timestamp(milliseconds: 60)) == 3)
        #expect(live.heldCount(b, at: Timestamp(milliseconds: 60)) == nil)
        live.acknowledged(a, delivery: 1)
        live.acknowledged(a, delivery: 1)
        live.acknowledged(a, delivery: 99)
        #expect(try live.count(a, at: Timestamp(milliseconds: 150), load: load) == 2)  // 2 and 4
        #expect(try live.count(a, at: Timestamp(milliseconds: 200), load: load) == 1)  // 2 expired at 200
        #expect(loads == 1)
        live.forget([a])
        #expect(live.heldCount(a, at: Timestamp(milliseconds: 0)) == nil)
        #expect(try live.count(a, at: Timestamp(milliseconds: 0), load: load) == 3)
        #expect(loads == 2)
    }

    @Test("at most capacity devices are held; with none, every count loads")
    func capacity() throws {
        let held = BWMILiveNotifications(capacity: 2)
        for n in 1...3 {
            #expect(held.hasRoom == (n < 3))
            #expect(try held.count(try Fixture.device(n), at: Timestamp(milliseconds: 0)) { [Live(delivery: 1, expires: 9)] } == 1)
        }
        #expect(held.heldDevices == 2 && !held.hasRoom)
        let none = BWMILiveNotifications(capacity: 0)
        #expect(try none.count(try Fixture.device(1), at: Timestamp(milliseconds: 0)) { [Live(delivery: 1, expires: 9)] } == 1)
        #expect(none.heldDevices == 0)
    }

    /// Through the store: the count an acknowledgement's commit gives is the database's count, after notifications
    /// recorded once the device was held, acknowledgements by either path, expiry, and jobs that failed.
    @Test("the count an acknowledgement commits is the database's, after recordings, both acknowledgement paths, expiry and failed jobs")
    func throughTheStore() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            let device = try Fixture.device(1)
            try await insertRegistrations(store, devices: [device])
            let keys = try await deliveries.commit(inserts: try (1...6).map { n in
                try Fixture.pushed(to: [device], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
            }, changes: [])
            let bwmi = BWMIDevice(deviceID: device, app: Fixture.appKey, platform: .iOS, token: PushToken("token-\(device.text)")!,
                                  phone: nil, email: nil, active: true)
            let t0 = Fixture.t0
            func notification(_ index: Int, expires: Timestamp = t0 + .seconds(3_600)) -> BWMINotification {
                BWMINotification(delivery: keys[index], device: device, text: "n\(index)", bid: nil, sentAt: t0, expiresAt: expires)
            }
            /// Acknowledged in a commit, as the scheduler does; its live count.
            func acknowledge(_ index: Int, at: Timestamp = t0) async throws -> Int? {
                let write = BWMIAcknowledgementWrite(delivery: keys[index], device: device, at: at)
                _ = try await deliveries.queueCommit(requests: [], inserts: [], changes: [], acknowledgements: [write],
                                                     chain: CommitChain()).keys()
                #expect(write.outcome == .acknowledged)
                return write.liveCount
            }
            /// What the database says (the count readers make when the device is not held).
            func counted(at: Timestamp = t0) throws -> Int {
                try store.read { db throws(StoreError) in
                    Int(try db.scalar(Store.liveBWMICountSQL, [.text(device.text), .integer(at.milliseconds)], as: Int64.self) ?? 0)
                }
            }

            try await store.recordBWMINotifications([notification(0), notification(1), notification(2, expires: t0 + .seconds(10))])
            #expect(store.bwmiLive.heldCount(device, at: t0) == 3)  // loaded by the recording (there is room)
            #expect(try await acknowledge(0) == 2)
            #expect(store.bwmiLive.heldCount(device, at: t0) == 2)
            try await store.recordBWMINotifications([notification(3)])  // held: counted
            #expect(try await acknowledge(1) == 2)
            #expect(try counted() == 2)
            // The other path (an ack the scheduler did not apply) changes what is held too.
            #expect(try await store.acknowledgeBWMI(delivery: keys[3], device: bwmi, at: t0, hybrid: false) == .acknowledged)
            #expect(try await store.liveBWMICount(device: bwmi, at: t0) == 1)
            // Expiry: the third is no longer counted from its expiry on.
            #expect(try await store.liveBWMICount(device: bwmi, at: t0 + .seconds(10)) == 0)

            // A job that fails after recording one (the second names no delivery): nothing of it is counted, and the
            // device is read again.
            let dangling = BWMINotification(delivery: DeliveryKey(999_999), device: device, text: "", bid: nil, sentAt: t0,
                                            expiresAt: t0 + .seconds(3_600))
            await #expect(throws: StoreError.self) { try await store.recordBWMINotifications([notification(4), dangling]) }
            #expect(store.bwmiLive.heldCount(device, at: t0) == nil)
            #expect(try await store.liveBWMICount(device: bwmi, at: t0) == 1)
            try await store.recordBWMINotifications([notification(4), notification(5)])
            #expect(try await acknowledge(4) == 2)  // loaded again: 2 and 5
            #expect(try counted() == 2)

            #expect(try counted() == 2)
            #expect(try await store.liveBWMINotifications(device: bwmi, at: t0).map(\.delivery) == [keys[2], keys[5]])
            await store.close()
        }
    }
}
