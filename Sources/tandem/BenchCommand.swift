import Foundation

/// `tandem bench store`: prints measured figures with their conditions (never a pass/fail).
struct BenchCommand {
    static let usage = """
        usage: tandem bench store [--rows N] [--reference-rows N] [--writers N] [--directory PATH]
               tandem bench timers [--quick yes]
               tandem bench apns --url URL --key AuthKey.p8 [--ca cert.pem] [--pushes N] [--streams N]
               tandem bench smpp --port PORT [--count N] [--window N] [--binds N]

        store   group-commit durable rows/s with N concurrent waiting writers (default 64), beside
                single-row transactions in the same run, for synchronous=normal and =full. Writes fresh
                SQLite files under --directory (default: a new temporary directory).
        timers  the timer wheel beside a binary-heap reference: schedule+cancel ns/op at 1k, 1M and 10M
                pending, bytes per pending timer, and firing lateness for 1M timers over ~10 s on the real
                clock (about 1.5 minutes; --quick yes for a smaller smoke run).

        apns    pushes/s through the APNs provider over one HTTP/2 connection to an APNs peer (the
                h2 fake of Tests/peers/apns_fake.py), with the most concurrent streams the peer saw.
        smpp    submit_sm/s through the SMPP client to an SMSC (Tests/peers/smpp_smsc.py --no-tap).

        `make bench` runs this and the HTTP benchmark (wrk against `tandem serve`).

        """

    let arguments: [String]

    func run() async throws {
        guard let parsed = try Arguments.parse(arguments, known: ["rows", "reference-rows", "writers", "directory", "quick",
                                                                     "url", "key", "ca", "pushes", "streams", "port", "count",
                                                                     "window", "binds"], usage: Self.usage) else { return }
        let words = try parsed.expectPositional(1, usage: "tandem bench store|timers|apns|smpp [options]")
        switch words[0] {
        case "store": break
        case "timers":
            let report = runTimerBenchmark(quick: parsed.option("quick") == "yes")
            ProcessIO.writeOutput(report + "\n")
            return
        case "apns":
            try await ProviderBench.apns(parsed)
            return
        case "smpp":
            try await ProviderBench.smpp(parsed)
            return
        default:
            throw CommandFailure(.usage, "unknown benchmark \"\(words[0])\"\n\(Self.usage)")
        }
        let rows = try parsed.integer("rows", in: 1_000...100_000_000, default: 200_000)
        let referenceRows = try parsed.integer("reference-rows", in: 100...10_000_000, default: 20_000)
        let writers = try parsed.integer("writers", in: 1...10_000, default: 64)
        let directory = parsed.option("directory") ?? NSTemporaryDirectory() + "tandem-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try await runStoreBenchmark(rows: rows, referenceRows: referenceRows, writers: writers, directory: directory)
    }
}
