import Synchronization
import TandemCore

/// `make bench`'s SMPP figure: how many `submit_sm` per second one client gets accepted by an SMSC,
/// e.g. `Tests/peers/smpp_smsc.py --no-tap` (PyPI's smpp34) on the same machine.
///
/// Submits `count` single-part GSM-7 SMS without receipts from `concurrency` tasks (default: twice the
/// binds' total window, so the windows stay full), timing from the first submit to the last response.
/// Waits up to 10 s for every bind before starting. Not measured: receipts, multipart texts, latency.
public enum SMPPBenchmark {
    public struct Result: Sendable, Hashable, CustomStringConvertible {
        public let submitted: Int
        public let rejected: Int
        public let elapsed: Duration
        public let window: Int
        public let binds: Int

        /// Accepted submits per second of wall-clock time.
        public var submitsPerSecond: Double {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return seconds > 0 ? Double(submitted) / seconds : 0
        }

        public var description: String {
            let rate = Int(submitsPerSecond.rounded())
            let milliseconds = elapsed.milliseconds
            let fraction = String(milliseconds % 1_000)
            let seconds = "\(milliseconds / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
            let suffix = rejected > 0 ? ", \(rejected) rejected" : ""
            return "SMPP submits/s with a window of \(window) (\(binds) bind\(binds == 1 ? "" : "s")): \(rate)"
                + " (\(submitted) in \(seconds) s\(suffix))"
        }
    }

    public static func run(host: String = "127.0.0.1", port: Int, count: Int = 10_000, window: Int = 50,
                           binds: Int = 1, concurrency: Int? = nil, systemID: String = "bench",
                           password: String = "bench") async throws(SMPPClientError) -> Result {
        var settings = SMPPClient.Settings(host: host, port: port, systemID: systemID, password: password)
        settings.window = window
        settings.binds = binds
        settings.registeredDelivery = 0
        settings.reconnectBackoff = .milliseconds(50) ... .seconds(1)
        settings.throttleBackoff = .milliseconds(10) ... .milliseconds(500)
        let client = try SMPPClient(settings: settings)
        client.start()
        let clock = ContinuousClock()
        let bindDeadline = clock.now + .seconds(10)
        while client.status.boundBinds < binds, clock.now < bindDeadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let msisdn = MSISDN("+31612345678")!
        let next = Counter()
        let start = clock.now
        let (submitted, rejected) = await withTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<max(1, concurrency ?? 2 * window * binds) {
                group.addTask {
                    var accepted = 0, refused = 0
                    while true {
                        let number = next.value.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard number < count else { break }
                        let sms = SMSRequest(key: DeliveryKey(Int64(number)), msisdn: msisdn,
                                             content: benchmarkContent(number), validity: .seconds(3_600))
                        switch await client.submit(sms) {
                        case .submitted: accepted += 1
                        case .rejected: refused += 1
                        }
                    }
                    return (accepted, refused)
                }
            }
            var totals = (0, 0)
            for await (accepted, refused) in group { totals = (totals.0 + accepted, totals.1 + refused) }
            return totals
        }
        let elapsed = clock.now - start
        await client.shutdown()
        return Result(submitted: submitted, rejected: rejected, elapsed: elapsed, window: window, binds: binds)
    }

    /// Hands out message numbers to the submitting tasks.
    private final class Counter: Sendable {
        let value = Atomic(0)
    }

    private static func benchmarkContent(_ number: Int) -> MessageContent {
        MessageContent(messageID: GUID("00000000-0000-4000-8000-000000000000")!, sender: "Bench",
                       body: "Benchmark message \(number)", reference: nil)
    }
}
