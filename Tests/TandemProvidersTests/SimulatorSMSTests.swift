import Testing
import TandemCore
@testable import TandemProviders

@Suite("SMS simulator")
struct SimulatorSMSTests {
    static func sms(_ key: Int64, to number: String, body: String = "Your code is 123456") -> SMSRequest {
        SMSRequest(key: DeliveryKey(key), msisdn: MSISDN(number)!,
                   content: MessageContent(messageID: GUID("11111111-1111-4111-8111-111111111111")!, sender: "Shop", body: body,
                                           reference: nil),
                   validity: .seconds(3_600))
    }

    static func settings(_ adjust: (inout Configuration.SimulatedSMS) -> Void = { _ in }) -> Configuration.SimulatedSMS {
        var settings = Configuration.SimulatedSMS()
        settings.latency = .zero
        adjust(&settings)
        return settings
    }

    @Test("an SMS is submitted under sim-<n> and reported delivered by that reference after reportAfter")
    func reportsByReference() async {
        let clock = SimulatorTestClock()
        let simulator = SMSSimulator(settings: Self.settings(), clock: clock)
        let reports = Collected<SMSDeliveryReport>()
        simulator.onReport { reports.append(contentsOf: $0) }
        #expect(simulator.providerName == "simulator")
        #expect(await simulator.submit(Self.sms(1, to: "+31612345678")) == .submitted(references: ["sim-1"]))
        #expect(await simulator.submit(Self.sms(2, to: "+31612345000")) == .submitted(references: ["sim-2"]))
        #expect(simulator.log.map(\.key) == [DeliveryKey(1), DeliveryKey(2)])
        clock.advance(by: .milliseconds(499))
        #expect(await eventually { clock.sleeperCount > 0 })
        #expect(reports.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(await eventually { reports.all.count == 2 })
        #expect(reports.all == [
            SMSDeliveryReport(provider: "simulator", reference: "sim-1", outcome: .delivered, detail: "simulated stat:DELIVRD"),
            SMSDeliveryReport(provider: "simulator", reference: "sim-2", outcome: .failed, detail: "simulated stat:UNDELIV"),
        ])
    }

    @Test("rules by suffix, first match wins: failed, expired after its own delay, never reported, refused")
    func rules() async {
        let clock = SimulatorTestClock()
        let simulator = SMSSimulator(settings: Self.settings {
            $0.rules = [Configuration.SimulatedSMSRule(msisdnSuffix: "000", outcome: .failed),
                        Configuration.SimulatedSMSRule(msisdnSuffix: "00", outcome: .expired, after: .seconds(2)),
                        Configuration.SimulatedSMSRule(msisdnSuffix: "5", outcome: .none),
                        Configuration.SimulatedSMSRule(msisdnSuffix: "9", outcome: .rejected)]
        }, clock: clock)
        let reports = Collected<SMSDeliveryReport>()
        simulator.onReport { reports.append(contentsOf: $0) }
        #expect(await simulator.submit(Self.sms(1, to: "+31612345000")) == .submitted(references: ["sim-1"]))
        #expect(await simulator.submit(Self.sms(2, to: "+31612345600")) == .submitted(references: ["sim-2"]))
        #expect(await simulator.submit(Self.sms(3, to: "+31612345675")) == .submitted(references: ["sim-3"]))
        #expect(await simulator.submit(Self.sms(4, to: "+31612345679")) == .rejected(reason: "the simulated SMSC refused the number"))
        #expect(simulator.log.map(\.outcome) == [.failed, .expired, .none])
        #expect(simulator.pendingReports == 2)

        clock.advance(by: .milliseconds(500))
        #expect(await eventually { reports.all.count == 1 })
        #expect(reports.all.map(\.reference) == ["sim-1"])
        clock.advance(by: .milliseconds(1_500))
        #expect(await eventually { reports.all.count == 2 })
        #expect(reports.all.last == SMSDeliveryReport(provider: "simulator", reference: "sim-2", outcome: .expired,
                                                      detail: "simulated stat:EXPIRED"))
        clock.advance(by: .seconds(86_400))
        #expect(await eventually { clock.sleeperCount == 0 && simulator.pendingReports == 0 })
        #expect(reports.all.count == 2)
    }

    /// With a 20 ms latency: nothing is answered 1 ms before it ends, and all `count` answers come once it has.
    private static func expectAnsweredAtLatency(_ clock: SimulatorTestClock, _ answers: Collected<SMSSubmitResult>,
                                                count: Int) async {
        #expect(await eventually { clock.sleeperCount > 0 })
        clock.advance(by: .milliseconds(19))
        for _ in 0..<20 { await Task.yield() }
        #expect(answers.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(await eventually { answers.all.count == count })
    }

    @Test("a submission is answered after the latency on the clock, several waiting together")
    func latency() async {
        let clock = SimulatorTestClock()
        let simulator = SMSSimulator(settings: Self.settings { $0.latency = .milliseconds(20) }, clock: clock)
        let answers = Collected<SMSSubmitResult>()
        for key in 1...3 {
            Task { answers.append(contentsOf: [await simulator.submit(Self.sms(Int64(key), to: "+3161234567\(key)"))]) }
        }
        await Self.expectAnsweredAtLatency(clock, answers, count: 3)
        #expect(Set(answers.all) == [.submitted(references: ["sim-1"]), .submitted(references: ["sim-2"]),
                                     .submitted(references: ["sim-3"])])
    }

    @Test("a batch is answered together after one latency, in order, each SMS under its own rule")
    func batch() async {
        let clock = SimulatorTestClock()
        let simulator = SMSSimulator(settings: Self.settings {
            $0.latency = .milliseconds(20)
            $0.rules = [Configuration.SimulatedSMSRule(msisdnSuffix: "99", outcome: .rejected)]
        }, clock: clock)
        let answers = Collected<SMSSubmitResult>()
        Task {
            answers.append(contentsOf: await simulator.submit(batch: [Self.sms(1, to: "+31612345671"), Self.sms(2, to: "+31612345699"),
                                                                      Self.sms(3, to: "+31612345673")]))
        }
        await Self.expectAnsweredAtLatency(clock, answers, count: 3)
        #expect(answers.all == [.submitted(references: ["sim-1"]), .rejected(reason: "the simulated SMSC refused the number"),
                                .submitted(references: ["sim-2"])])
        #expect(simulator.log.map(\.key) == [DeliveryKey(1), DeliveryKey(3)])
    }

    @Test("the log keeps the latest submissions, oldest first")
    func logBound() async {
        let simulator = SMSSimulator(settings: Self.settings(), clock: SimulatorTestClock())
        let total = SMSSimulator.kept + 5
        for key in 1...total {
            _ = await simulator.submit(Self.sms(Int64(key), to: "+31612345678"))
        }
        let log = simulator.log
        #expect(log.count == SMSSimulator.kept)
        #expect(log.first?.reference == "sim-6")
        #expect(log.last?.reference == "sim-\(total)")
        #expect(log.map(\.key.rawValue) == Array(6...Int64(total)))
    }

    @Test("before a report handler is set, nothing is queued")
    func noHandlerNoReports() async {
        let simulator = SMSSimulator(settings: Self.settings(), clock: SimulatorTestClock())
        #expect(await simulator.submit(Self.sms(1, to: "+31612345678")) == .submitted(references: ["sim-1"]))
        #expect(simulator.pendingReports == 0)
    }

    @Test("the log says where the SMS went and what will be reported, with the number masked and no text")
    func narration() async {
        let lines = LogLines()
        let clock = SimulatorTestClock()
        let simulator = SMSSimulator(settings: Self.settings(), clock: clock, logger: lines.logger)
        simulator.onReport { _ in }
        _ = await simulator.submit(Self.sms(3, to: "+31612345678", body: String(repeating: "x", count: 161)))
        clock.advance(by: .seconds(1))
        #expect(await eventually { lines.all.count == 2 })
        #expect(lines.all[0].contains("simulated SMS submitted to +3161****678; it will be reported delivered in 500 ms"))
        #expect(lines.all[0].contains(#""parts":2"#) && lines.all[0].contains(#""delivery":3"#))
        #expect(lines.all[1].contains("simulated SMS delivery report: delivered"))
        #expect(!lines.all.joined().contains("+31612345678") && !lines.all.joined().contains("xxxx"))
    }
}
