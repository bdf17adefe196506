import XCTest
@testable import TandemProviders

/// HTTP/1.1 against Python's `http.server` (protocol_version "HTTP/1.1").
final class HTTP1Tests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: PeerProcess!
    private var client: HTTPClient!

    override func setUp() async throws {
        directory = try TemporaryDirectory()
        server = try await PeerProcess.pythonHTTP(in: directory)
        client = try HTTPClient(configuration: configuration())
    }

    override func tearDown() async throws {
        await client?.shutdown()
        server?.stop()
        // XCTest keeps every test case instance until the process ends: release what deinit cleans up.
        (client, server, directory) = (nil, nil, nil)
    }

    private func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    func testGETSendsHeadersAndReturnsStatusHeadersAndBodyOverHTTP11() async throws {
        let response = try await client.send(HTTPClientRequest(
            url: url("/echo"), headers: [HTTPClientHeader("X-Test", "hello world"), HTTPClientHeader("X-Empty", "")]))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.version, .http1_1)
        XCTAssertEqual(response.version.major, 1)
        XCTAssertEqual(response.header("X-Method"), "GET")
        XCTAssertEqual(response.header("x-seen-test"), "hello world")
        XCTAssertEqual(response.header("X-SEEN-EMPTY"), "", "a field with an empty value is sent, not dropped")
        XCTAssertEqual(response.header("x-seen-expect"), "<none>")
        XCTAssertEqual(response.header("x-seen-content-length"), "<none>", "a GET has no body")
        XCTAssertEqual(response.body, [])
    }

    func testEveryMethodRoundTripsABinaryBody() async throws {
        let body = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) } // includes NULs
        for method in [HTTPClientRequest.Method.post, .put, .patch, .delete] {
            let response = try await client.send(HTTPClientRequest(method: method, url: url("/echo"), body: body))
            XCTAssertEqual(response.status, 200, "\(method)")
            XCTAssertEqual(response.header("x-method"), method.rawValue)
            XCTAssertEqual(response.body, body, "\(method) body echoed byte for byte")
            XCTAssertEqual(response.header("x-seen-content-length"), "3000")
            XCTAssertEqual(response.header("x-seen-content-type"), "<none>", "no curl default form content type")
            XCTAssertEqual(response.header("x-seen-expect"), "<none>", "no Expect: 100-continue")
        }
    }

    func testLargeBodiesAreSentWithoutExpect100Continue() async throws {
        // curl 7.88 adds `Expect: 100-continue` to bodies over 1 MiB unless told not to.
        let client = try HTTPClient(configuration: configuration { $0.maxResponseBytes = 2 << 20 })
        let body = Array(repeating: UInt8(ascii: "b"), count: (1 << 20) + 4096)
        let response = try await client.send(HTTPClientRequest(method: .post, url: url("/echo"), body: body))
        XCTAssertEqual(response.header("x-seen-expect"), "<none>")
        XCTAssertEqual(response.body.count, body.count)
        await client.shutdown()
    }

    func testGivenContentTypeIsSentAndEmptyPUTAnnouncesZeroLength() async throws {
        let json = try await client.send(HTTPClientRequest(
            method: .post, url: url("/echo"), headers: [HTTPClientHeader("Content-Type", "application/json")],
            body: Array(#"{"a":1}"#.utf8)))
        XCTAssertEqual(json.header("x-seen-content-type"), "application/json")
        XCTAssertEqual(json.text, #"{"a":1}"#)

        let empty = try await client.send(HTTPClientRequest(method: .put, url: url("/echo")))
        XCTAssertEqual(empty.header("x-method"), "PUT")
        XCTAssertEqual(empty.header("x-seen-content-length"), "0")

        let delete = try await client.send(HTTPClientRequest(method: .delete, url: url("/echo")))
        XCTAssertEqual(delete.header("x-method"), "DELETE")
        XCTAssertEqual(delete.header("x-seen-content-length"), "<none>", "a DELETE without body sends none")
    }

    func testHEADReturnsHeadersWithoutWaitingForABody() async throws {
        let response = try await client.send(HTTPClientRequest(method: .head, url: url("/big?n=100")))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("content-length"), "100")
        XCTAssertEqual(response.body, [])
    }

    func testErrorStatusesAreResponsesNotErrors() async throws {
        for status in [201, 404, 503] {
            let response = try await client.send(HTTPClientRequest(url: url("/status/\(status)")))
            XCTAssertEqual(response.status, status)
            XCTAssertEqual(response.text, "status body")
        }
        XCTAssertEqual(client.statistics.requestsCompleted, 3)
        XCTAssertEqual(client.statistics.requestsFailed, 0)
    }

    func testResponseHeaderNamesAreLowerCasedAndRepeatedFieldsKept() async throws {
        let response = try await client.send(HTTPClientRequest(url: url("/headers")))
        XCTAssertEqual(response.header("X-Mixed-Case"), "Value With Spaces")
        XCTAssertEqual(response.headers(named: "SET-COOKIE"), ["a=1", "b=2"])
        XCTAssertEqual(response.header("x-empty"), "")
        XCTAssertNil(response.header("x-absent"))
        XCTAssertTrue(response.headers.contains(HTTPClientHeader("x-mixed-case", "Value With Spaces")))
        XCTAssertTrue(response.headers.allSatisfy { $0.name == $0.name.lowercased() })
    }

    func testOnlyTheFinalResponsesHeadersAreKeptAfterAnInterimResponse() async throws {
        let response = try await client.send(HTTPClientRequest(method: .post, url: url("/interim"), body: [1, 2, 3]))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("x-final"), "yes")
        XCTAssertNil(response.header("x-interim"), "the 100 Continue response's fields are dropped")
        XCTAssertEqual(response.text, "final")
    }

    func testSequentialRequestsReuseOneKeepAliveConnection() async throws {
        var ports: Set<String> = []
        for _ in 0..<5 {
            let response = try await client.send(HTTPClientRequest(url: url("/echo")))
            ports.insert(response.header("x-client-port") ?? "?")
        }
        XCTAssertEqual(ports.count, 1, "the server saw one client port")
        XCTAssertEqual(client.statistics.connectionsOpened, 1)
        XCTAssertEqual(client.statistics.requestsCompleted, 5)
    }

    func testConcurrentRequestsOpenUpToMaxConnectionsPerHost() async throws {
        let client = try HTTPClient(configuration: configuration { $0.maxConnectionsPerHost = 3 })
        let request = HTTPClientRequest(url: url("/slow?ms=150"))
        let ports = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<6 { group.addTask { try await client.send(request).header("x-client-port") ?? "?" } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        await client.shutdown()
        XCTAssertEqual(ports.count, 3, "HTTP/1.1 cannot multiplex: three connections, each used twice")
        XCTAssertEqual(client.statistics.connectionsOpened, 3)
        XCTAssertEqual(client.statistics.requestsCompleted, 6)
    }

    func testAConfiguredProxyCarriesTheRequest() async throws {
        // http.server answers an absolute-form request line like an origin server, so a
        // response for an unresolvable host proves the request went through the proxy.
        let client = try HTTPClient(configuration: configuration { $0.proxy = "http://127.0.0.1:\(server.port)" })
        let response = try await client.send(HTTPClientRequest(url: "http://tandem.invalid/echo"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("x-method"), "GET")
        await client.shutdown()
    }

    func testRequestTimeoutFailsWithTimeout() async throws {
        let error = await client.failure(of: HTTPClientRequest(url: url("/slow?ms=3000"), timeout: .milliseconds(200)))
        XCTAssertEqual(error, .timeout)
        XCTAssertEqual(client.statistics.activeTransfers, 0)
        let after = try await client.send(HTTPClientRequest(url: url("/echo")))
        XCTAssertEqual(after.status, 200, "the client still works after a timeout")
    }

    func testResponseBodyLimitIsEnforcedForDeclaredAndChunkedLengths() async throws {
        let client = try HTTPClient(configuration: configuration { $0.maxResponseBytes = 1000 })
        let atLimit = try await client.send(HTTPClientRequest(url: url("/big?n=1000")))
        XCTAssertEqual(atLimit.body.count, 1000)
        let declared = await client.failure(of: HTTPClientRequest(url: url("/big?n=1001")))
        XCTAssertEqual(declared, .responseTooLarge(limit: 1000))
        let chunked = await client.failure(of: HTTPClientRequest(url: url("/chunked?n=5000")))
        XCTAssertEqual(chunked, .responseTooLarge(limit: 1000))
        let chunkedSmall = try await client.send(HTTPClientRequest(url: url("/chunked?n=999")))
        XCTAssertEqual(chunkedSmall.body, Array(repeating: UInt8(ascii: "y"), count: 999))
        await client.shutdown()
    }

    func testCancellingTheTaskRemovesTheTransferAndThrowsCancelled() async throws {
        let client = self.client!
        let request = HTTPClientRequest(url: url("/slow?ms=5000"))
        let task = Task { await client.failure(of: request) }
        let started = await eventually { client.statistics.activeTransfers == 1 }
        XCTAssertTrue(started)
        task.cancel()
        let error = await task.value
        XCTAssertEqual(error, .cancelled)
        XCTAssertEqual(client.statistics.activeTransfers, 0, "removed from the multi handle before send threw")
        XCTAssertEqual(client.statistics.requestsFailed, 1)
        let after = try await client.send(HTTPClientRequest(url: url("/echo")))
        XCTAssertEqual(after.status, 200, "the client still works after a cancellation")
    }

    func testAnAlreadyCancelledTaskSendsNothing() async throws {
        let client = self.client!
        let request = HTTPClientRequest(url: url("/echo"))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await client.failure(of: request)
        }
        let error = await task.value
        XCTAssertEqual(error, .cancelled)
        XCTAssertEqual(client.statistics.connectionsOpened, 0)
        XCTAssertEqual(client.statistics.requestsCompleted, 0)
    }

    func testInvalidRequestsAreRefusedBeforeSending() async throws {
        let injected = await client.failure(of: HTTPClientRequest(
            url: url("/echo"), headers: [HTTPClientHeader("X-Test", "a\r\nX-Injected: 1")]))
        guard case .invalidRequest = injected else { return XCTFail("header injection accepted: \(String(describing: injected))") }
        let badName = await client.failure(of: HTTPClientRequest(url: url("/echo"), headers: [HTTPClientHeader("X Test", "a")]))
        guard case .invalidRequest = badName else { return XCTFail("bad header name accepted") }
        let ftp = await client.failure(of: HTTPClientRequest(url: "ftp://127.0.0.1:\(server.port)/"))
        guard case .invalidRequest = ftp else { return XCTFail("ftp accepted: \(String(describing: ftp))") }
        let spaced = await client.failure(of: HTTPClientRequest(url: url("/a b")))
        guard case .invalidRequest = spaced else { return XCTFail("URL with a space accepted") }
        let zero = await client.failure(of: HTTPClientRequest(url: url("/echo"), timeout: .zero))
        guard case .invalidRequest = zero else { return XCTFail("zero timeout accepted") }
        XCTAssertNil(HTTPClientRequest.Method(rawValue: "GE T"))
        XCTAssertEqual(HTTPClientRequest.Method(rawValue: "PROPFIND")?.rawValue, "PROPFIND")
        XCTAssertEqual(client.statistics.connectionsOpened, 0)
    }
}
