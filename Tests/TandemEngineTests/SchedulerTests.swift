import Foundation
import Synchronization
import Testing
import TandemCore
@testable import TandemEngine

/// The scheduler with a manual clock: a 30-second fallback is tested in microseconds.
@Suite("Scheduler")
struct SchedulerTests {
    static let start = Timestamp(milliseconds: 1_700_000_000_000)
    static let msisdn = MSISDN("+31612345678")!
    static let d1 = DeviceID(GUID("aaaaaaaa-0000-4000-8000-000000000001")!)
    static let d2 = DeviceID(GUID("aaaaaaaa-0000-4000-8000-000000000002")!)
    static let t1 = PushTarget(deviceID: d1, platform: .iOS, token: PushToken("tok1")!)
    static let t2 = PushTarget(deviceID: d2, platform: .android, token: PushToken("tok2")!)
    static let content = MessageContent(messageID: GUID("cccccccc-0000-4000-8000-000000000001")!, sender: "Acme", body: "Your code is 123456",
                                        reference: "ref-1")

    static func at(_ seconds: Double) -> Timestamp { start + .milliseconds(Int64((seconds * 1_000).rounded())) }

    struct Harness {
        let clock = ManualClock(SchedulerTests.start)
        let store: InMemoryDeliveryStore
        let push: RecordingPushSender
        let sms: RecordingSMSSender
        let dispatcher: Dispatcher
        let scheduler: Scheduler

        init(store: InMemoryDeliveryStore = InMemoryDeliveryStore(), push: RecordingPushSender = RecordingPushSender(),
             sms: RecordingSMSSender = RecordingSMSSender(), smsSender: (any SMSSender)? = nil,
             configuration: Scheduler.Configuration = Scheduler.Configuration(), ownership: (any PartitionOwnership)? = nil) {
            self.store = store
            self.push = push
            self.sms = sms
            dispatcher = Dispatcher(push: push, sms: smsSender ?? sms)
            scheduler = Scheduler(store: store, dispatcher: dispatcher, clock: clock, configuration: configuration,
                                  ownership: ownership)
        }

        func start(_ type: AppMessageType, targets: [PushTarget] = [SchedulerTests.t1], smsAllowed: Bool = true,
                   content: MessageContent = SchedulerTests.content) async throws -> DeliveryKey {
            let plan = PushPlan(targets: targets, policy: PolicySet.specDefaults[type], smsAllowed: smsAllowed)
            let keys = try await scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(SchedulerTests.msisdn), content: content,
                                                          decision: .push(plan), smsValidity: .seconds(3_600))])
            await dispatcher.waitUntilIdle()
            return keys[0]
        }

        /// Moves the clock, fires what is due, and waits for the providers' results to be recorded.
        func advance(to seconds: Double) async throws {
            clock.advance(to: SchedulerTests.at(seconds))
            try await scheduler.fireDueTimers()
            await dispatcher.waitUntilIdle()
        }
    }

    @Test("Critical: advanced 29.99 s → no SMS; 30.00 s → exactly one SMS")
    func criticalFallsBackAtThirtySeconds() async throws {
        let h = Harness()
        let key = try await h.start(.critical)
        #expect(h.push.sent.count == 1)
        try await h.advance(to: 29.99)
        #expect(h.sms.sent.isEmpty)
        try await h.advance(to: 30.00)
        #expect(h.sms.sent.count == 1)
        #expect(h.sms.sent.first?.msisdn == Self.msisdn)
        try await h.advance(to: 90)
        #expect(h.sms.sent.count == 1)
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
        // Both 30 s timers were due together: the second firing changed nothing and is not logged.
        #expect(h.store.events(for: key) == ["routed", "pushAccepted", "timerFired", "smsSubmitted"])
    }

    @Test("Critical: a read at 10 s means no SMS, ever, and one Read report")
    func criticalReadInTime() async throws {
        let h = Harness()
        let key = try await h.start(.critical)
        try await h.advance(to: 10)
        #expect(try await h.scheduler.record(.readReported(Self.d1), for: key) == .applied)
        try await h.advance(to: 31)
        try await h.advance(to: 3_600)
        #expect(h.sms.sent.isEmpty)
        #expect(h.store.reports(for: key) == [.read])
        #expect(await h.scheduler.pendingTimerCount == 0)
        #expect(await h.scheduler.inFlightCount == 0)
    }

    @Test("OTP: a manual fallback while the push is still queued stops it and sends exactly one SMS")
    func otpManualFallbackTerminatesQueuedPush() async throws {
        let h = Harness(push: RecordingPushSender(hold: true))
        let plan = PushPlan(targets: [Self.t1], policy: PolicySet.specDefaults.otp, smsAllowed: true)
        let key = try await h.scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(Self.msisdn), content: Self.content, decision: .push(plan),
                                                                      smsValidity: .seconds(600))])[0]
        #expect(await eventually { h.push.waiting == 1 })
        #expect(try await h.scheduler.requestManualFallback(for: key) == .available)
        #expect(try await h.scheduler.requestManualFallback(for: key) == .smsAlreadyRequested)
        h.push.release()
        await h.dispatcher.waitUntilIdle()
        #expect(h.push.sent.isEmpty, "the terminated push must not go out")
        #expect(h.push.cancelled == 1)
        #expect(h.sms.sent.count == 1)
        #expect(h.store.stored(key)?.pushTerminated == true)
        try await h.scheduler.record(.smsReportReceived(.delivered), for: key)
        #expect(h.store.reports(for: key) == [.delivered])
    }

    @Test("OTP: no ack within the 30 s lifetime → Failed, no SMS")
    func otpExpires() async throws {
        let h = Harness()
        let key = try await h.start(.otp)
        try await h.advance(to: 29.999)
        #expect(h.store.reports(for: key).isEmpty)
        try await h.advance(to: 30)
        #expect(h.store.reports(for: key) == [.failed])
        #expect(h.sms.sent.isEmpty)
    }

    @Test("Default: a dead token invalidates the registration and the SMS goes out")
    func deadTokenFallsBack() async throws {
        let h = Harness(push: RecordingPushSender { _ in .rejected(.tokenDead) })
        let key = try await h.start(.default)
        #expect(h.store.state.withLock { $0.invalidations } == [Self.d1])
        #expect(h.sms.sent.count == 1)
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
    }

    @Test("an ack after the final status is logged and changes nothing")
    func lateAck() async throws {
        let h = Harness()
        let key = try await h.start(.default)
        try await h.scheduler.record(.deliveryAcknowledged(Self.d1), for: key)
        #expect(try await h.scheduler.record(.deliveryAcknowledged(Self.d1), for: key) == .loggedAfterFinal)
        #expect(h.store.reports(for: key) == [.delivered])
        #expect(h.store.events(for: key).suffix(2) == ["deliveryAcknowledged", "deliveryAcknowledged"])
    }

    static let appA = AppKey(GUID("aaaa0000-0000-4000-8000-00000000000a")!)
    static let appB = AppKey(GUID("bbbb0000-0000-4000-8000-00000000000b")!)
    static let appContent = MessageContent(messageID: GUID("cccccccc-0000-4000-8000-000000000002")!, sender: "Acme",
                                           body: "hi", reference: nil, app: appA)

    @Test("two devices: both pushed, the first read wins")
    func twoDevices() async throws {
        let h = Harness()
        let key = try await h.start(.critical, targets: [Self.t1, Self.t2])
        #expect(h.push.sent.first?.targets.count == 2)
        try await h.scheduler.record(.readReported(Self.d2), for: key)
        #expect(try await h.scheduler.record(.readReported(Self.d1), for: key) == .loggedAfterFinal)
        #expect(h.store.reports(for: key) == [.read])
    }

    @Test("the store commits before the provider is called")
    func commitBeforeSend() async throws {
        let log = OrderLog()
        let h = Harness(store: InMemoryDeliveryStore(sharedLog: log), push: RecordingPushSender(sharedLog: log))
        _ = try await h.start(.default)
        #expect(log.all.prefix(2) == ["commit", "push"])
    }

    @Test("a failed commit leaves the delivery as it was and answers with the error")
    func failedCommitRollsBack() async throws {
        let h = Harness()
        let key = try await h.start(.critical)
        let before = await h.scheduler.delivery(for: key)
        h.store.state.withLock { $0.failNextCommit = true }
        await #expect(throws: InMemoryDeliveryStore.InjectedFailure.self) {
            try await h.scheduler.record(.readReported(Self.d1), for: key)
        }
        #expect(await h.scheduler.delivery(for: key) == before)
        #expect(try await h.scheduler.record(.readReported(Self.d1), for: key) == .applied)
        #expect(h.store.reports(for: key) == [.read])
    }

    @Test("the next batch is applied and queued while a commit is in flight; if that commit fails, both are undone and the next batch goes on a new chain")
    func pipelinedCommitFailureUndoesLaterBatches() async throws {
        let h = Harness()
        let key = try await h.start(.critical)
        let before = await h.scheduler.delivery(for: key)
        h.store.state.withLock { $0.holding = true }
        let ack = Task { try await h.scheduler.record(.deliveryAcknowledged(Self.d1), for: key) }
        #expect(await eventually { h.store.heldCount == 1 })
        // Prepared on top of the acknowledgement, whose commit has not returned: queued behind it.
        let read = Task { try await h.scheduler.record(.readReported(Self.d1), for: key) }
        #expect(await eventually { h.store.heldCount == 2 })
        #expect(await h.scheduler.delivery(for: key) != before)
        // Two commits in flight: a third batch waits in the scheduler.
        let plan = PushPlan(targets: [Self.t2], policy: PolicySet.specDefaults.critical, smsAllowed: true)
        let third = Task {
            try await h.scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(Self.msisdn), content: Self.content, decision: .push(plan),
                                                                smsValidity: .seconds(3_600))])
        }
        #expect(await eventually { await h.scheduler.queue.count == 1 })
        #expect(h.store.heldCount == 2)

        h.store.state.withLock { $0.failNextCommit = true }
        h.store.releaseHeld()
        await #expect(throws: InMemoryDeliveryStore.InjectedFailure.self) { try await ack.value }
        // Its caller gets the same error; the store never applied it (its chain broke before it).
        await #expect(throws: InMemoryDeliveryStore.InjectedFailure.self) { try await read.value }
        #expect(await h.scheduler.delivery(for: key) == before)
        #expect(h.store.events(for: key) == ["routed", "pushAccepted"])
        #expect(h.store.reports(for: key).isEmpty)
        // The waiting batch went out on a new chain.
        let started = try await third.value
        #expect(h.store.stored(started[0]) != nil)
        #expect(try await h.scheduler.record(.readReported(Self.d1), for: key) == .applied)
        #expect(h.store.reports(for: key) == [.read])
    }

    @Test("behind a commit in flight, waiting commands form the next batch once they amount to as much as it does")
    func nextBatchWaitsUntilAsLarge() async throws {
        let h = Harness()
        let keys = try await h.scheduler.accept((0..<3).map { _ in
            Scheduler.NewDelivery(recipient: .msisdn(Self.msisdn), content: Self.content,
                                  decision: .push(PushPlan(targets: [Self.t1], policy: PolicySet.specDefaults.critical, smsAllowed: true)),
                                  smsValidity: .seconds(3_600))
        })
        await h.dispatcher.waitUntilIdle()
        h.store.state.withLock { $0.holding = true }
        let three = Task { try await h.scheduler.record(keys.map { ($0, DeliveryEvent.deliveryAcknowledged(Self.d1)) }) }
        #expect(await eventually { h.store.heldCount == 1 })
        let first = Task { try await h.scheduler.record(.readReported(Self.d1), for: keys[0]) }
        #expect(await eventually { await h.scheduler.queue.count == 1 })
        #expect(h.store.heldCount == 1)          // one event behind three: it waits
        let second = Task { try await h.scheduler.record([(keys[1], .readReported(Self.d1)), (keys[2], .readReported(Self.d1))]) }
        #expect(await eventually { h.store.heldCount == 2 })   // three behind three: prepared and queued
        #expect(await h.scheduler.queue.isEmpty)
        h.store.releaseHeld()
        #expect(try await three.value == [.applied, .applied, .applied])
        #expect(try await first.value == .applied)
        #expect(try await second.value == [.applied, .applied])
        #expect(keys.map { h.store.reports(for: $0) } == [[.read], [.read], [.read]])
    }

    @Test("two events for one delivery in one batch: each one's actions are carried out (the read's cancels the read timer)")
    func everyEventOfABatchIsActedOn() async throws {
        let h = Harness()
        let key = try await h.start(.critical)
        let outcomes = try await h.scheduler.record([(key, .deliveryAcknowledged(Self.d1)), (key, .readReported(Self.d1))])
        #expect(outcomes == [.applied, .applied])
        #expect(await h.scheduler.pendingTimerCount == 0)
        try await h.advance(to: 120)
        #expect(h.store.events(for: key) == ["routed", "pushAccepted", "deliveryAcknowledged", "readReported"])
        #expect(h.sms.sent.isEmpty)
    }

    @Test("an event for a delivery made final by a batch still committing is logged as late, not applied again")
    func eventAfterFinalInFlight() async throws {
        let h = Harness()
        let key = try await h.start(.critical)
        h.store.state.withLock { $0.holding = true }
        let read = Task { try await h.scheduler.record(.readReported(Self.d1), for: key) }
        #expect(await eventually { h.store.heldCount == 1 })
        let again = Task { try await h.scheduler.record(.readReported(Self.d2), for: key) }
        #expect(await eventually { h.store.heldCount == 2 })
        h.store.releaseHeld()
        #expect(try await read.value == .applied)
        #expect(try await again.value == .loggedAfterFinal)
        #expect(h.store.reports(for: key) == [.read])
        #expect(await h.scheduler.delivery(for: key) == nil)
    }

    @Test("restart: recovery fires an overdue timer at once and a future one at its time")
    func recovery() async throws {
        let store = InMemoryDeliveryStore()
        let first = Harness(store: store)
        let early = try await first.start(.critical)          // fallback due at 30 s
        first.clock.advance(to: Self.at(20))
        let plan = PushPlan(targets: [Self.t2], policy: PolicySet.specDefaults.critical, smsAllowed: true)
        let late = try await first.scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(Self.msisdn), content: Self.content, decision: .push(plan),
                                                          smsValidity: .seconds(3_600))])[0]   // due at 50 s
        await first.dispatcher.waitUntilIdle()
        // The process dies; a new one starts at 40 s with the same store.
        let second = Harness(store: store)
        second.clock.advance(to: Self.at(40))
        let report = try await second.scheduler.recover()
        #expect(report.deliveries == 2)
        #expect(report.timersOverdue == 2)     // both of `early`'s timers
        #expect(report.timersArmed == 2)       // both of `late`'s
        #expect(report.pushesResent == 0)      // both pushes had been accepted before the crash
        #expect(await eventually { !second.sms.sent.isEmpty })
        await second.dispatcher.waitUntilIdle()
        #expect(second.sms.sent.map(\.key) == [early])
        try await second.advance(to: 49.99)
        #expect(second.sms.sent.count == 1)
        try await second.advance(to: 50)
        #expect(second.sms.sent.map(\.key) == [early, late])
    }

    @Test("restart: a push with no stored verdict and an SMS with no stored submit are sent again")
    func recoveryResendsUnsettledWork() async throws {
        let store = InMemoryDeliveryStore()
        let first = Harness(store: store, push: RecordingPushSender(hold: true))
        let pushKey = try await first.scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(Self.msisdn), content: Self.content,
            decision: .push(PushPlan(targets: [Self.t1], policy: PolicySet.specDefaults.otp, smsAllowed: true)), smsValidity: .seconds(60))])[0]
        // The crash happens before the push verdict and before any SMS result is stored.
        let second = Harness(store: store)
        let report = try await second.scheduler.recover()
        #expect(report.pushesResent == 1)
        await second.dispatcher.waitUntilIdle()
        #expect(second.push.sent.map(\.key) == [pushKey])
        #expect(await second.scheduler.delivery(for: pushKey)?.devices[Self.d1]?.accepted == true)
        first.push.release()
    }

    @Test("a batch of 1,000 recipients is committed together and answered with its keys in order")
    func largeBatch() async throws {
        let h = Harness()
        let plan = PushPlan(targets: [Self.t1], policy: PolicySet.specDefaults.critical, smsAllowed: true)
        let batch = (0..<1_000).map { index in
            Scheduler.NewDelivery(recipient: .msisdn(MSISDN("+3161\(String(format: "%07d", index))")!), content: Self.content,
                                  decision: index.isMultiple(of: 2) ? .push(plan) : .reject(.noSupportedChannel), smsValidity: .seconds(60))
        }
        let keys = try await h.scheduler.accept(batch)
        await h.dispatcher.waitUntilIdle()
        #expect(keys.count == 1_000)
        #expect(keys == keys.sorted())
        #expect(Set(keys).count == 1_000)
        #expect(h.push.sent.count == 500)
        #expect(h.store.reports(for: keys[1]) == [.rejected])
        #expect(await h.scheduler.inFlightCount == 500)
        #expect(await h.scheduler.pendingTimerCount == 1_000)   // two 30 s timers per pushed delivery
        try await h.advance(to: 30)
        #expect(h.sms.sent.count == 500)
    }

    @Test("the run loop fires timers as the clock reaches them")
    func runLoop() async throws {
        let h = Harness()
        _ = try await h.start(.critical)
        let loop = Task { await h.scheduler.run() }
        h.clock.advance(to: Self.at(30))
        #expect(await eventually { !h.sms.sent.isEmpty })
        loop.cancel()
        #expect(h.sms.sent.count == 1)
    }
}
