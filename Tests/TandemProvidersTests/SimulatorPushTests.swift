import Foundation
import Testing
import TandemCore
@testable import TandemProviders

@Suite("Push simulator")
struct SimulatorPushTests {
    struct Receipt: Hashable {
        let key: DeliveryKey
        let device: DeviceID
        let kind: SimulatedReceipt
    }

    static let msisdn = MSISDN("+31612345678")!

    static func device(_ n: Int) -> DeviceID {
        DeviceID(GUID(String(format: "00000000-0000-4000-8000-%012d", n))!)
    }

    static func push(_ key: Int64, tokens: [String], msisdn: MSISDN = msisdn) -> PushRequest {
        let targets = tokens.enumerated().map { index, token in
            PushTarget(deviceID: device(index + 1), platform: .android, token: PushToken(token)!)
        }
        return PushRequest(key: DeliveryKey(key), recipient: .msisdn(msisdn), targets: targets, policy: PolicySet.specDefaults.defaultPolicy,
                           content: MessageContent(messageID: GUID("11111111-1111-4111-8111-111111111111")!, sender: "Shop",
                                                   body: "Your parcel", reference: nil))
    }

    static func settings(_ adjust: (inout Configuration.SimulatedPush) -> Void = { _ in }) -> Configuration.SimulatedPush {
        var settings = Configuration.SimulatedPush()
        settings.latency = .zero
        adjust(&settings)
        return settings
    }

    @Test("out of the box: dead tokens are refused as dead, noack and noread are accepted, the rest acked and read")
    func builtInRules() async {
        let simulator = PushSimulator(settings: Self.settings(), clock: SimulatorTestClock())
        let verdicts = await simulator.send(Self.push(1, tokens: ["dead-1", "noack-2", "noread-3", "fcm-4", "DEADBEEF"]))
        #expect(verdicts == [Self.device(1): .rejected(.tokenDead), Self.device(2): .accepted, Self.device(3): .accepted,
                             Self.device(4): .accepted, Self.device(5): .rejected(.tokenDead)])
        #expect(simulator.log.map(\.deviceID) == [Self.device(2), Self.device(3), Self.device(4)])
        #expect(simulator.log.map(\.behaviour) == [.neverAck, .ack(after: .milliseconds(200)),
                                                   .ackAndRead(ackAfter: .milliseconds(200), readAfter: .seconds(1))])
    }

    @Test("rules match in order, the first match wins, the default decides when none matches")
    func ruleOrder() async {
        let simulator = PushSimulator(settings: Self.settings {
            $0.rules = [Configuration.SimulatedPushRule(tokenPrefix: "de", msisdnSuffix: "99", behaviour: .transientFailure),
                        Configuration.SimulatedPushRule(tokenPrefix: "dead", behaviour: .neverAck),
                        Configuration.SimulatedPushRule(msisdnSuffix: "678", behaviour: .tokenDead)]
            $0.default = .ack(after: .milliseconds(5))
        }, clock: SimulatorTestClock())
        #expect(await simulator.send(Self.push(1, tokens: ["dead-a", "other"])) == [Self.device(1): .accepted,
                                                                                    Self.device(2): .rejected(.tokenDead)])
        #expect(await simulator.send(Self.push(2, tokens: ["dead-a", "other"], msisdn: MSISDN("+31612345699")!)) ==
                [Self.device(1): .rejected(.transient), Self.device(2): .accepted])
        #expect(simulator.log.map(\.behaviour) == [.neverAck, .ack(after: .milliseconds(5))])
    }

    @Test("receipts: the ack after N ms and the read M ms after it, with the device and kind, through the callback")
    func receiptsFollowTheClock() async throws {
        let clock = SimulatorTestClock()
        let simulator = PushSimulator(settings: Self.settings {
            $0.default = .ackAndRead(ackAfter: .milliseconds(300), readAfter: .seconds(2))
        }, clock: clock)
        let received = Collected<Receipt>()
        simulator.onReceipts { batch in received.append(contentsOf: batch.map { Receipt(key: $0.0, device: $0.1, kind: $0.2) }) }
        _ = await simulator.send(Self.push(7, tokens: ["a", "noack-b", "noread-c"]))
        #expect(simulator.pendingReceipts == 3)  // a: ack and read; noread-c: ack; noack-b: nothing

        clock.advance(by: .milliseconds(199))
        #expect(await eventually { clock.sleeperCount > 0 })
        #expect(received.all.isEmpty)
        clock.advance(by: .milliseconds(101))  // 300 ms: a's ack; noread's built-in rule acks at 200 ms
        #expect(await eventually { received.all.count == 2 })
        #expect(received.all == [Receipt(key: DeliveryKey(7), device: Self.device(3), kind: .delivered),
                                 Receipt(key: DeliveryKey(7), device: Self.device(1), kind: .delivered)])
        clock.advance(by: .seconds(2))
        #expect(await eventually { received.all.count == 3 })
        #expect(received.all.last == Receipt(key: DeliveryKey(7), device: Self.device(1), kind: .read))
        clock.advance(by: .seconds(3_600))
        #expect(await eventually { clock.sleeperCount == 0 && simulator.pendingReceipts == 0 })
        #expect(received.all.count == 3)
    }

    @Test("an ack and read due at once come in one batch, the ack first")
    func ackBeforeRead() async {
        let clock = SimulatorTestClock()
        let simulator = PushSimulator(settings: Self.settings { $0.default = .ackAndRead(ackAfter: .zero, readAfter: .zero) },
                                      clock: clock)
        let batches = Collected<[SimulatedReceipt]>()
        simulator.onReceipts { batch in batches.append(contentsOf: [batch.map(\.2)]) }
        _ = await simulator.send(Self.push(1, tokens: ["a"]))
        #expect(await eventually { !batches.all.isEmpty })
        #expect(batches.all == [[.delivered, .read]])
    }

    @Test("a BWMI badge-only update is accepted and logged but gets no receipts (it is no message); its log keeps the latest")
    func badgeOnlyHasNoReceipts() async {
        let simulator = PushSimulator(settings: Self.settings { $0.default = .ackAndRead(ackAfter: .zero, readAfter: .zero) },
                                      clock: SimulatorTestClock())
        simulator.onReceipts { _ in }
        var presentation = PushPresentation()
        presentation.bwmi = .badgeOnly
        presentation.badge = 0
        let plain = Self.push(0, tokens: ["a"])
        let badge = PushRequest(key: DeliveryKey(0), recipient: .device(Self.device(1)), targets: plain.targets, policy: plain.policy,
                                content: MessageContent(messageID: plain.content.messageID, sender: "BWMI", body: "", reference: nil,
                                                        presentation: presentation))
        #expect(await simulator.send(badge) == [Self.device(1): .accepted])
        #expect(simulator.pendingReceipts == 0 && simulator.log.count == 1)
        // More pushes than the log keeps: it holds the latest `kept`, oldest first.
        for _ in 0..<(PushSimulator.kept + 2) { _ = await simulator.send(badge) }
        #expect(simulator.log.count == PushSimulator.kept && simulator.pendingReceipts == 0)
    }

    @Test("before a receipt handler is set, nothing is queued")
    func noHandlerNoReceipts() async {
        let simulator = PushSimulator(settings: Self.settings(), clock: SimulatorTestClock())
        #expect(await simulator.send(Self.push(1, tokens: ["a"])) == [Self.device(1): .accepted])
        #expect(simulator.pendingReceipts == 0)
    }

    /// Behaviours of `count` single-target pushes with tokens from `token(i)`.
    private static func behaviours(seed: UInt64, count: Int, token: (Int) -> String = { "t\($0)" })
        async -> [Configuration.SimulatedPushBehaviour] {
        let simulator = PushSimulator(settings: settings {
            $0.seed = seed
            $0.rules = [Configuration.SimulatedPushRule(tokenPrefix: "t", probability: 0.5, behaviour: .neverAck)]
            $0.default = .ack(after: .milliseconds(1))
        }, clock: SimulatorTestClock())
        for i in 0..<count { _ = await simulator.send(push(Int64(i), tokens: [token(i)])) }
        return simulator.log.map(\.behaviour)
    }

    @Test("the same seed and order of pushes give the same behaviours; another seed others")
    func seededDeterminism() async {
        let first = await Self.behaviours(seed: 42, count: 64)
        let again = await Self.behaviours(seed: 42, count: 64)
        let other = await Self.behaviours(seed: 43, count: 64)
        #expect(first == again)
        #expect(first != other)
        #expect(first.contains(.neverAck) && first.contains(.ack(after: .milliseconds(1))))
    }

    @Test("a probability is drawn only when the rule's other conditions hold")
    func drawsOnlyWhenMatching() async {
        let alone = await Self.behaviours(seed: 9, count: 32)
        let interleaved = await Self.behaviours(seed: 9, count: 64) { $0 % 2 == 0 ? "t\($0)" : "x\($0)" }
        // Tokens starting x never reach the draw, so the t tokens see the same draws as when alone.
        let tOnly = interleaved.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        #expect(tOnly == alone)
        #expect(interleaved.enumerated().filter { $0.offset % 2 == 1 }.allSatisfy { $0.element == .ack(after: .milliseconds(1)) })
    }

    @Test("SplitMix64 gives the reference sequence for seed 0")
    func splitMixReference() {
        var generator = SplitMix64(seed: 0)
        // Published test values for SplitMix64 seeded with 0.
        #expect([generator.next(), generator.next(), generator.next()] ==
                [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
        var unit = SplitMix64(seed: 1)
        #expect((0..<1_000).map { _ in unit.nextUnit() }.allSatisfy { (0..<1).contains($0) })
    }

    @Test("pushes get their verdicts after the latency on the clock, several waiting on one timer, not before")
    func latency() async {
        let clock = SimulatorTestClock()
        let simulator = PushSimulator(settings: Self.settings { $0.latency = .milliseconds(20) }, clock: clock)
        let verdicts = Collected<[DeviceID: PushVerdict]>()
        for key in 1...3 {
            Task { verdicts.append(contentsOf: [await simulator.send(Self.push(Int64(key), tokens: ["noack-\(key)"]))]) }
        }
        #expect(await eventually { clock.sleeperCount > 0 })
        clock.advance(by: .milliseconds(19))
        for _ in 0..<20 { await Task.yield() }
        #expect(verdicts.all.isEmpty && simulator.log.isEmpty)
        #expect(await eventually { clock.sleeperCount == 1 })  // the queue's one task, not a sleep per push
        clock.advance(by: .milliseconds(1))
        #expect(await eventually { verdicts.all.count == 3 })
        #expect(verdicts.all.allSatisfy { $0 == [Self.device(1): .accepted] } && simulator.log.count == 3)
    }

    @Test("a batch waits out one latency together, then each push is answered in order as it would be alone")
    func batch() async {
        let clock = SimulatorTestClock()
        let simulator = PushSimulator(settings: Self.settings { $0.latency = .milliseconds(20) }, clock: clock)
        let answered = Collected<[[DeviceID: PushVerdict]]>()
        Task {
            answered.append(contentsOf: [await simulator.send(batch: [Self.push(1, tokens: ["noack-1"]), Self.push(2, tokens: ["dead-1", "ok-2"]),
                                                                      Self.push(3, tokens: [])])])
        }
        #expect(await eventually { clock.sleeperCount == 1 })  // one wait for the batch
        clock.advance(by: .milliseconds(19))
        for _ in 0..<20 { await Task.yield() }
        #expect(answered.all.isEmpty && simulator.log.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(await eventually { answered.all.count == 1 })
        #expect(answered.all.first == [[Self.device(1): .accepted], [Self.device(1): .rejected(.tokenDead), Self.device(2): .accepted], [:]])
        #expect(simulator.log.map(\.key) == [DeliveryKey(1), DeliveryKey(2)])
        #expect(await simulator.send(batch: []).isEmpty)
    }

    @Test("a push cancelled while the simulated service is slow gets no verdicts")
    func cancelledWhileQueued() async {
        let simulator = PushSimulator(settings: Self.settings { $0.latency = .seconds(60) })
        let task = Task { await simulator.send(Self.push(1, tokens: ["a"])) }
        task.cancel()
        #expect(await task.value == [:])
        #expect(simulator.log.isEmpty)
    }

    @Test("the log says in words what will happen, with the number masked")
    func narration() async {
        let lines = LogLines()
        let simulator = PushSimulator(settings: Self.settings(), clock: SimulatorTestClock(), logger: lines.logger)
        simulator.onReceipts { _ in }
        _ = await simulator.send(Self.push(5, tokens: ["noack-1", "dead-2", "ok-3"]))
        let all = lines.all.joined()
        #expect(lines.all.count == 3)
        #expect(lines.all[0].contains("the app will never acknowledge it, so the policy's no-ack fallback (usually an SMS) takes over"))
        #expect(lines.all[1].contains("the token is dead (like APNs 410 Unregistered)"))
        #expect(lines.all[2].contains("the app will acknowledge it in 200 ms and report it read 1 s later"))
        #expect(all.contains("+3161****678") && !all.contains("+31612345678"))
        #expect(lines.all[0].contains(#""delivery":5"#) && lines.all[0].contains(#""behaviour":"neverAck""#))
    }
}
