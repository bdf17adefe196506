import Testing
import TandemCore
@testable import TandemEngine

/// SMS delivery reports reach their delivery by provider and part id — in flight, after a restart, after
/// the delivery is final, and when the report overtakes the submit it belongs to.
@Suite("Scheduler: SMS reports by part id")
struct SchedulerSMSReportTests {
    typealias H = SchedulerTests.Harness

    /// A Default message to a number without the app: SMS at once.
    func startSMS(_ h: H) async throws -> DeliveryKey {
        let route = SMSRoute(reason: .noPushableDevice, policy: PolicySet.specDefaults.defaultPolicy)
        let key = try await h.scheduler.accept([Scheduler.NewDelivery(msisdn: SchedulerTests.msisdn, content: SchedulerTests.content,
                                                                      decision: .sms(route), smsValidity: .seconds(3_600))])[0]
        await h.dispatcher.waitUntilIdle()
        return key
    }

    func report(_ reference: String, _ outcome: SMSOutcome, provider: String = "recording") -> SMSDeliveryReport {
        SMSDeliveryReport(provider: provider, reference: reference, outcome: outcome)
    }

    @Test("a three-part SMS is Delivered when the last part's report arrives, reported once")
    func multipart() async throws {
        let h = H(sms: RecordingSMSSender(parts: 3))
        let key = try await startSMS(h)
        #expect(await h.scheduler.delivery(for: key)?.sms?.references == ["smsc-1.1", "smsc-1.2", "smsc-1.3"])
        try await h.scheduler.recordSMSReports([report("smsc-1.1", .delivered), report("smsc-1.3", .delivered)])
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
        try await h.scheduler.recordSMSReports([report("smsc-1.2", .delivered)])
        #expect(await h.scheduler.delivery(for: key) == nil)   // final, out of memory
        #expect(h.store.reports(for: key) == [.delivered])
        #expect(h.store.events(for: key).filter { $0 == "smsPartReported" }.count == 3)
    }

    @Test("a report under another provider's name does not match the same id")
    func providerMatters() async throws {
        let h = H(configuration: Scheduler.Configuration(smsReportGrace: .seconds(1)))
        let key = try await startSMS(h)
        let waiting = Task { try await h.scheduler.recordSMSReports([report("smsc-1", .delivered, provider: "kannel")]) }
        while await h.scheduler.waitingSMSReports == 0 { await Task.yield() }
        h.clock.advance(to: SchedulerTests.at(2))   // the grace ends: the report is dropped
        try await waiting.value
        #expect(await h.scheduler.delivery(for: key)?.state == .awaitingSMSReport)
    }

    @Test("after a restart, reports still find in-flight parts; a report for a final delivery goes to its log")
    func afterRestart() async throws {
        let store = InMemoryDeliveryStore()
        let first = H(store: store)
        let key = try await startSMS(first)
        let second = H(store: store)
        try await second.scheduler.recover()
        try await second.scheduler.recordSMSReports([report("smsc-1", .failed)])
        #expect(store.reports(for: key) == [.failed])
        try await second.scheduler.recordSMSReports([report("smsc-1", .delivered)])
        #expect(store.reports(for: key) == [.failed])
        #expect(store.events(for: key).suffix(2) == ["smsPartReported", "smsPartReported"])
    }

    @Test("a report that overtakes its submit waits for it and is then applied")
    func overtakingReport() async throws {
        let h = H()
        // The report arrives first: nothing has this id yet.
        let early = Task { try await h.scheduler.recordSMSReports([report("smsc-1", .delivered)]) }
        while await h.scheduler.waitingSMSReports == 0 { await Task.yield() }
        let key = try await startSMS(h)
        try await early.value
        #expect(h.store.reports(for: key) == [.delivered])
    }
}
