import XCTest
@testable import TandemProviders

/// HTTP/2 over TLS against nghttpd (Debian `nghttp2-server`) with a self-signed certificate
/// made at test time; plus ALPN fallback against a TLS HTTP/1.1-only Python server.
final class HTTP2TLSTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var certificate: TestCertificate!
    private var server: PeerProcess!
    private var htdocs: String!
    private let page = Array("hello over h2\n".utf8)

    override func setUp() async throws {
        directory = try TemporaryDirectory()
        htdocs = directory.path + "/htdocs"
        try FileManager.default.createDirectory(atPath: htdocs, withIntermediateDirectories: true)
        _ = try directory.write(page, to: "htdocs/hello.txt")
        certificate = try TestCertificate.make(in: directory, name: "server")
        server = try await PeerProcess.nghttpd(in: directory, htdocs: htdocs, certificate: certificate,
                                         extraArguments: ["--echo-upload"])
    }

    override func tearDown() async throws {
        server?.stop()
        // XCTest keeps every test case instance until the process ends: release what deinit cleans up.
        (server, directory) = (nil, nil)
    }

    private var url: String { "https://127.0.0.1:\(server.port)/hello.txt" }

    private func trustingClient(_ adjust: (inout HTTPClient.Configuration) -> Void = { _ in }) throws -> HTTPClient {
        try HTTPClient(configuration: configuration {
            $0.caFile = certificate.certPath
            adjust(&$0)
        })
    }

    func testGETNegotiatesHTTP2AndVerifiesTheServerWithTheCAFile() async throws {
        let client = try trustingClient()
        let response = try await client.send(HTTPClientRequest(url: url))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.version, .http2)
        XCTAssertEqual(response.version.major, 2)
        XCTAssertEqual(response.body, page)
        XCTAssertEqual(response.header("Content-Length"), "\(page.count)")
        XCTAssertNotNil(response.header("server"))
        let missing = try await client.send(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/absent"))
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(client.statistics.connectionsOpened, 1, "the second request reused the connection")
        await client.shutdown()
    }

    func testFiftyConcurrentRequestsAreMultiplexedOverOneConnection() async throws {
        // Room for 8 connections: one is used only because the requests wait (CURLOPT_PIPEWAIT)
        // for the first connection's ALPN result and then share it as streams.
        let client = try trustingClient { $0.maxConnectionsPerHost = 8 }
        let request = HTTPClientRequest(url: url)
        let responses = try await withThrowingTaskGroup(of: HTTPClientResponse.self) { group in
            for _ in 0..<50 { group.addTask { try await client.send(request) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(responses.count, 50)
        XCTAssertTrue(responses.allSatisfy { $0.status == 200 && $0.version == .http2 && $0.body == page })
        XCTAssertEqual(client.statistics.connectionsOpened, 1)
        XCTAssertEqual(client.statistics.requestsCompleted, 50)
        await client.shutdown()
    }

    func testStreamLimitSpillsOverToFurtherConnectionsUpToTheHostLimit() async throws {
        // Bodies of 4 MiB keep streams open long enough for the limit of 5 to bind even when the 40 tasks
        // start slowly (512 KiB bodies were all carried one after another once, on a busy CI machine).
        _ = try directory.write(Array(repeating: 0x41, count: 4 << 20), to: "htdocs/large.bin")
        let client = try trustingClient {
            $0.maxConnectionsPerHost = 4
            $0.maxConcurrentStreams = 5
            $0.maxResponseBytes = 8 << 20
        }
        let request = HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/large.bin")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 { group.addTask { _ = try await client.send(request) } }
            try await group.waitForAll()
        }
        let opened = client.statistics.connectionsOpened
        XCTAssertGreaterThan(opened, 1, "5 streams per connection cannot carry 40 requests at once")
        XCTAssertLessThanOrEqual(opened, 4, "never more than maxConnectionsPerHost")
        XCTAssertEqual(client.statistics.requestsCompleted, 40)
        await client.shutdown()
    }

    func testCancellationsRacingCompletionsEachResolveOnce() async throws {
        let client = try trustingClient()
        let request = HTTPClientRequest(url: url)
        // Establish the connection first: cancelling the transfer that is still setting up a
        // connection makes curl close that connection, which is legitimate but not what is tested.
        _ = try await client.send(request)
        let tasks = (0..<200).map { _ in
            Task { await client.result(of: request) }
        }
        for (index, task) in tasks.enumerated() where index % 2 == 0 {
            for _ in 0..<(index % 7) { await Task.yield() }
            task.cancel()
        }
        var responses = 0
        for task in tasks {
            switch await task.value {
            case .success(let response):
                XCTAssertEqual(response.body, page)
                responses += 1
            case .failure(let error):
                XCTAssertEqual(error, .cancelled)
            }
        }
        XCTAssertGreaterThanOrEqual(responses, 100, "uncancelled requests all succeed")
        XCTAssertEqual(client.statistics.requestsCompleted, responses + 1)
        XCTAssertEqual(client.statistics.activeTransfers, 0)
        let after = try await client.send(request)
        XCTAssertEqual(after.status, 200)
        XCTAssertEqual(client.statistics.connectionsOpened, 1, "cancelled streams do not cost the connection")
        await client.shutdown()
    }

    func testShutdownDuringManyRequestsResolvesEveryOne() async throws {
        let client = try trustingClient()
        let request = HTTPClientRequest(url: url)
        let tasks = (0..<200).map { _ in
            Task { await client.result(of: request) }
        }
        await Task.yield()
        await client.shutdown()
        for task in tasks {
            switch await task.value {
            case .success(let response): XCTAssertEqual(response.status, 200)
            case .failure(let error): XCTAssertEqual(error, .shutdown)
            }
        }
        XCTAssertEqual(client.statistics.activeTransfers, 0)
    }

    func testPOSTBodyRoundTripsOverHTTP2() async throws {
        let client = try trustingClient()
        let body = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) } // larger than one 16 KiB frame
        let response = try await client.send(HTTPClientRequest(
            method: .post, url: "https://127.0.0.1:\(server.port)/echo",
            headers: [HTTPClientHeader("Content-Type", "application/octet-stream")], body: body))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.version, .http2)
        XCTAssertEqual(response.body, body)
        await client.shutdown()
    }

    func testWithoutTheCAFileVerificationFailsWithATLSError() async throws {
        let client = try HTTPClient(configuration: configuration()) // system trust store only
        let error = await client.failure(of: HTTPClientRequest(url: url))
        guard case .tls(let message) = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertFalse(message.isEmpty)
        await client.shutdown()
    }

    func testWithAnotherCAFileVerificationFailsWithATLSError() async throws {
        let other = try TestCertificate.make(in: directory, name: "other")
        let client = try HTTPClient(configuration: configuration { $0.caFile = other.certPath })
        let error = await client.failure(of: HTTPClientRequest(url: url))
        guard case .tls(let message) = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(message.lowercased().contains("certificate"), message)
        await client.shutdown()
    }

    func testVerificationCanBeTurnedOff() async throws {
        let client = try HTTPClient(configuration: configuration { $0.verifyPeer = false })
        let response = try await client.send(HTTPClientRequest(url: url))
        XCTAssertEqual(response.body, page)
        await client.shutdown()
    }

    func testHTTP2PreferenceFallsBackToHTTP11WhenALPNOffersOnlyHTTP11() async throws {
        let python = try await PeerProcess.pythonHTTP(in: directory, tls: (certificate.certPath, certificate.keyPath))
        defer { python.stop() }
        let client = try trustingClient()
        for version in [HTTPVersionPreference.http2, .http1_1] {
            let response = try await client.send(HTTPClientRequest(
                url: "https://127.0.0.1:\(python.port)/echo", version: version))
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.version, .http1_1, "\(version)")
        }
        XCTAssertEqual(client.statistics.connectionsOpened, 1, "the TLS HTTP/1.1 connection was reused")
        await client.shutdown()
    }

    func testHTTP11CanBeForcedAgainstAnHTTP2OnlyServer() async throws {
        // nghttpd offers only h2 in ALPN; forcing HTTP/1.1 must not silently use HTTP/2.
        let client = try trustingClient()
        let result = await client.failure(of: HTTPClientRequest(url: url, version: .http1_1))
        XCTAssertNotNil(result, "nghttpd cannot speak HTTP/1.1")
        await client.shutdown()
    }

    func testCleartextPriorKnowledgeHTTP2() async throws {
        // One request only: curl 7.88.1 cannot reuse a cleartext prior-knowledge connection (PITFALLS #6).
        let cleartext = try await PeerProcess.nghttpd(in: directory, htdocs: htdocs, certificate: nil)
        defer { cleartext.stop() }
        let client = try HTTPClient(configuration: configuration())
        let response = try await client.send(HTTPClientRequest(
            url: "http://127.0.0.1:\(cleartext.port)/hello.txt", version: .http2PriorKnowledge))
        XCTAssertEqual(response.version, .http2)
        XCTAssertEqual(response.body, page)
        await client.shutdown()
    }
}
