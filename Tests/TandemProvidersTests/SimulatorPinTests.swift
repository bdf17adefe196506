import Testing
import TandemCore
import TandemProviders

@Suite("PIN simulator")
struct SimulatorPinTests {
    private func message(_ number: String, pin: String) -> PinMessage {
        PinMessage(msisdn: MSISDN(number)!, pin: pin, sender: "Tandem", text: "Your code is \(pin)", language: nil)
    }

    @Test("delivers by SMS and voice, keeps the latest `kept` deliveries oldest first, and refuses numbers ending 000")
    func logAndRefusal() async throws {
        let simulator = PinSimulator(latency: .zero)
        let total = PinSimulator.kept * 2 + 3  // past the point where the log is trimmed, and past it again
        for index in 0..<total {
            try await simulator.sendPIN(message("+31612345678", pin: String(index)))
        }
        try await simulator.callPIN(message("+31612345679", pin: "voice"))
        let log = simulator.log
        #expect(log.count == PinSimulator.kept)
        #expect(log.last?.channel == .voice && log.last?.message == message("+31612345679", pin: "voice"))
        #expect(log.first?.message.pin == String(total - PinSimulator.kept + 1), "the oldest kept is exactly `kept` back")
        let smsPins = log.dropLast().map { Int($0.message.pin) }
        #expect(smsPins == Array((total - PinSimulator.kept + 1)..<total).map { Optional($0) }, "in order, none lost in between")
        await #expect(throws: PinDeliveryError.self) { try await simulator.sendPIN(message("+31612345000", pin: "1")) }
        #expect(simulator.log.count == PinSimulator.kept, "a refused PIN is not logged")
    }
}
