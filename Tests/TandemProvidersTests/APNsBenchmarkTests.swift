import Testing
import TandemCore
@testable import TandemProviders

/// The `tandem bench apns` entry point against the fake in its standalone mode (`--generate DIR`: its own
/// certificate and `.p8`, the default key ID, team ID and topic). Counts only: tests never assert timings.
@Suite("APNs benchmark entry point")
struct APNsBenchmarkTests {
    @Test("runs against the standalone fake: every push accepted on one connection, streams overlapping")
    func smallRun() async throws {
        let directory = try TemporaryDirectory()
        let fake = try await PeerProcess.pythonPeer("apns_fake.py", arguments: ["--generate", directory.path, "--delay-ms", "2"])
        var options = APNsBenchmark.Options(url: "https://127.0.0.1:\(fake.port)", keyPath: directory.path + "/AuthKey.p8",
                                            caFile: directory.path + "/cert.pem")
        options.pushes = 400
        options.warmUp = 20
        options.concurrency = 64
        let result = try await APNsBenchmark.run(options, clock: PushTestClock(realTimeMinus: .zero))
        #expect(result.pushes == 400 && result.accepted == 400)
        #expect(result.connectionsOpened == 1)
        #expect(result.providerTokensSigned == 1)
        let streams = try #require(result.mostConcurrentStreams, "the fake's /stats")
        #expect(streams > 1 && streams <= 64)
        #expect(result.mostRequestsInFlight >= streams)
        #expect(result.summary.contains("400 pushes"))
        fake.stop()
    }
}
