import Testing
import TandemCore
@testable import TandemEngine

/// Serving while recovery loads: the deliveries of a crashed process come back page by page while new ones are
/// accepted; what names a delivery not loaded yet waits for it, and no timer fires early.
@Suite("Scheduler: serving while recovering")
struct SchedulerRecoveryTests {
    typealias H = SchedulerTests.Harness

    /// Three Critical pushes, accepted by the provider, stored by a first process that then dies.
    static func crashedStore() async throws -> (InMemoryDeliveryStore, [DeliveryKey]) {
        let store = InMemoryDeliveryStore()
        let first = H(store: store)
        var keys: [DeliveryKey] = []
        for _ in 0..<3 { keys.append(try await first.start(.critical)) }
        return (store, keys)
    }

    @Test("while recovery loads, new messages are accepted, and a read for a delivery not loaded yet waits for it and prevents its fallback")
    func heldReceipt() async throws {
        let (store, keys) = try await Self.crashedStore()
        let second = H(store: store)
        second.clock.advance(to: SchedulerTests.at(10))
        await store.pages.hold(after: keys[0])  // the first page (one delivery) loads; the next two wait
        try await second.scheduler.beginRecovery()
        let loading = Task { try await second.scheduler.loadRecovered(pageKeys: 1) }
        #expect(await eventually { await store.pages.waitingCount == 2 })  // read after the first was installed
        #expect(await second.scheduler.delivery(for: keys[0]) != nil)
        #expect(await second.scheduler.delivery(for: keys[2]) == nil)

        // A new message is accepted at once.
        let fresh = try await second.start(.critical)
        #expect(fresh > keys[2])
        // The app reads the third one, which is not loaded yet: the read waits instead of going to the log only.
        let read = Task { try await second.scheduler.record(.readReported(SchedulerTests.d1), for: keys[2]) }
        #expect(await eventually { await second.scheduler.held.count == 1 })
        #expect(await second.scheduler.isRecovering)

        await store.pages.release()
        let report = try await loading.value
        #expect(try await read.value == .applied)
        #expect(report.deliveries == 3)
        #expect(report.commandsHeld == 1)
        #expect(await !second.scheduler.isRecovering)
        #expect(await second.scheduler.delivery(for: keys[2]) == nil)  // read: final
        #expect(store.reports(for: keys[2]) == [.read])

        // At the window the two unread ones (and the new one, started at 10 s, at 40 s) fall back; the read one never does.
        try await second.advance(to: 30)
        #expect(Set(second.sms.sent.map(\.key)) == [keys[0], keys[1]])
        try await second.advance(to: 40)
        #expect(Set(second.sms.sent.map(\.key)) == [keys[0], keys[1], fresh])
    }

    @Test("a deadline that passed while a delivery waits to be loaded fires as it loads, never before")
    func overdueFiresOnLoad() async throws {
        let (store, keys) = try await Self.crashedStore()
        let second = H(store: store)
        second.clock.advance(to: SchedulerTests.at(31))  // every 30 s window has passed
        await store.pages.hold(after: keys[0])
        try await second.scheduler.beginRecovery()
        let loading = Task { try await second.scheduler.loadRecovered(pageKeys: 1) }
        #expect(await eventually { await store.pages.waitingCount == 2 })
        try await second.advance(to: 31)
        #expect(second.sms.sent.map(\.key) == [keys[0]])  // only the loaded one
        await store.pages.release()
        _ = try await loading.value
        try await second.advance(to: 31)
        #expect(second.sms.sent.map(\.key).sorted() == keys)
    }

    @Test("a manual fallback request for a delivery not loaded yet waits for it and is answered from its state")
    func heldFallbackRequest() async throws {
        let store = InMemoryDeliveryStore()
        let first = H(store: store)
        let otp = try await first.start(.otp)
        let second = H(store: store)
        await store.pages.hold(after: nil)
        try await second.scheduler.beginRecovery()
        let loading = Task { try await second.scheduler.loadRecovered(pageKeys: 1) }
        let request = Task { try await second.scheduler.requestManualFallback(for: otp) }
        #expect(await eventually { await second.scheduler.loadWaiters.count == 1 })
        await store.pages.release()
        _ = try await loading.value
        #expect(try await request.value == .available)  // not `.alreadyFinal`, as a delivery missing from memory would be
        await second.dispatcher.waitUntilIdle()
        #expect(second.sms.sent.map(\.key) == [otp])
    }
}
