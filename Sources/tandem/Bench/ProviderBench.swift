import TandemEngine
import TandemProviders

/// `tandem bench apns` and `tandem bench smpp`: the providers against loopback peers that
/// `scripts/bench-providers.sh` starts (the h2 APNs fake, the smpp34 SMSC). Each prints one line of figures
/// with its conditions; the peers are Python and may be the ceiling, which the script's references show.
enum ProviderBench {
    static func apns(_ parsed: Arguments) async throws {
        guard let url = parsed.option("url"), let key = parsed.option("key") else {
            throw CommandFailure(.usage, "tandem bench apns --url https://127.0.0.1:PORT --key AuthKey.p8 [--ca cert.pem] [--pushes N] [--streams N]")
        }
        var options = APNsBenchmark.Options(url: url, keyPath: key, caFile: parsed.option("ca"))
        options.pushes = try parsed.integer("pushes", in: 100...10_000_000, default: 20_000)
        options.maxConcurrentStreams = try parsed.integer("streams", in: 1...10_000, default: 100)
        options.concurrency = 2 * options.maxConcurrentStreams
        let result = try await APNsBenchmark.run(options, clock: SystemClock())
        ProcessIO.writeOutput("   " + result.summary + "\n")
    }

    static func smpp(_ parsed: Arguments) async throws {
        guard let portText = parsed.option("port"), let port = Int(portText), (1...65_535).contains(port) else {
            throw CommandFailure(.usage, "tandem bench smpp --port PORT [--count N] [--window N] [--binds N]")
        }
        let result = try await SMPPBenchmark.run(port: port, count: try parsed.integer("count", in: 100...10_000_000, default: 20_000),
                                                 window: try parsed.integer("window", in: 1...10_000, default: 50),
                                                 binds: try parsed.integer("binds", in: 1...64, default: 1))
        ProcessIO.writeOutput("   \(result)\n")
    }
}
