import Foundation

/// `tandem bench store`: prints measured figures with their conditions (never a pass/fail).
struct BenchCommand {
    static let usage = """
        usage: tandem bench store [--rows N] [--reference-rows N] [--writers N] [--directory PATH]

        store   group-commit durable rows/s with N concurrent waiting writers (default 64), beside
                single-row transactions in the same run, for synchronous=normal and =full. Writes fresh
                SQLite files under --directory (default: a new temporary directory).

        `make bench` runs this and the HTTP benchmark (wrk against `tandem serve`).

        """

    let arguments: [String]

    func run() async throws {
        guard let parsed = try Arguments.parse(arguments, known: ["rows", "reference-rows", "writers", "directory"], usage: Self.usage) else { return }
        let words = try parsed.expectPositional(1, usage: "tandem bench store [--rows N] [--writers N]")
        guard words[0] == "store" else { throw CommandFailure(.usage, "unknown benchmark \"\(words[0])\"\n\(Self.usage)") }
        let rows = try parsed.integer("rows", in: 1_000...100_000_000, default: 200_000)
        let referenceRows = try parsed.integer("reference-rows", in: 100...10_000_000, default: 20_000)
        let writers = try parsed.integer("writers", in: 1...10_000, default: 64)
        let directory = parsed.option("directory") ?? NSTemporaryDirectory() + "tandem-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try await runStoreBenchmark(rows: rows, referenceRows: referenceRows, writers: writers, directory: directory)
    }
}
