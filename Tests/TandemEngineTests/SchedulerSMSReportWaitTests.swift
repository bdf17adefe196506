import Testing
import TandemCore
@testable import TandemEngine

/// A submitted SMS waits for its final report until its validity ends plus `smsReportWait`, on the manual clock:
/// a report in time decides; none by then ends it Failed (`smsReportMissing`), reported once; a report after that
/// goes to the log only; a restart re-arms the timer from the stored deadline.
@Suite("Scheduler: the SMS report wait")
struct SchedulerSMSReportWaitTests {
    typealias H = SchedulerTests.Harness

    /// Validity 1 h and a 10-minute wait: submitted at 0 s (the recording sender answers at once), due at 4_200 s.
    static let configuration = Scheduler.Configuration(smsReportWait: .seconds(600))

    func startSMS(_ h: H) async throws -> DeliveryKey {
        let route = SMSRoute(reason: .noAppKey, policy: PolicySet.specDefaults.defaultPolicy)
        let key = try await h.scheduler.accept([Scheduler.NewDelivery(recipient: .msisdn(SchedulerTests.msisdn), content: SchedulerTests.content,
                                                                      decision: .sms(route), smsValidity: .seconds(3_600))])[0]
        await h.dispatcher.waitUntilIdle()
        return key
    }

    func report(_ outcome: SMSOutcome) -> SMSDeliveryReport {
        SMSDeliveryReport(provider: "recording", reference: "smsc-1", outcome: outcome)
    }

    @Test("no report by the end of the validity plus the wait: Failed as smsReportMissing, reported once; a later report is logged only")
    func noReport() async throws {
        let h = H(configuration: Self.configuration)
        let key = try await startSMS(h)
        #expect(await h.scheduler.delivery(for: key)?.timers == [.smsValidity: SchedulerTests.at(4_200)])
        try await h.advance(to: 3_600)
        try await h.advance(to: 4_199.99)
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
        #expect(h.store.reports(for: key) == [])
        try await h.advance(to: 4_200)
        #expect(await h.scheduler.delivery(for: key) == nil)   // final, out of memory
        let stored = try #require(h.store.stored(key))
        #expect((stored.status, stored.resolution) == (.failed, .smsReportMissing))
        #expect(h.store.reports(for: key) == [.failed])
        #expect(h.store.events(for: key).last == "timerFired")

        try await h.scheduler.recordSMSReports([report(.delivered)])
        #expect(h.store.reports(for: key) == [.failed])
        #expect(h.store.stored(key)?.resolution == .smsReportMissing)
        #expect(h.store.events(for: key).suffix(2) == ["timerFired", "smsPartReported"])
        #expect(await h.scheduler.pendingTimerCount == 0)
    }

    @Test("a report after the validity ended but within the wait decides the outcome")
    func reportWithinTheWait() async throws {
        let h = H(configuration: Self.configuration)
        let key = try await startSMS(h)
        try await h.advance(to: 3_700)
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
        try await h.scheduler.recordSMSReports([report(.delivered)])
        #expect(h.store.reports(for: key) == [.delivered])
        #expect(h.store.stored(key)?.resolution == .deliveredBySMS)
        try await h.advance(to: 5_000)
        #expect(h.store.reports(for: key) == [.delivered])
    }

    @Test("after a restart the timer fires at the stored deadline, whatever the new configuration's wait")
    func restart() async throws {
        let store = InMemoryDeliveryStore()
        let first = H(store: store, configuration: Self.configuration)
        let key = try await startSMS(first)
        let second = H(store: store, configuration: Scheduler.Configuration(smsReportWait: .zero))
        let recovered = try await second.scheduler.recover()
        #expect(recovered.timersArmed == 1)
        try await second.advance(to: 4_199.99)
        #expect(await second.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
        try await second.advance(to: 4_200)
        #expect(store.reports(for: key) == [.failed])
        #expect(store.stored(key)?.resolution == .smsReportMissing)
    }
}
