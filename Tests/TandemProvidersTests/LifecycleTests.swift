import Foundation
import XCTest
@testable import TandemProviders

/// Connection failures, shutdown and deinit, configuration checks.
final class LifecycleTests: XCTestCase {
    func testConnectionRefusedFailsWithConnectFailed() async throws {
        // A socket bound but not listening: connecting to it is refused, and no one else can take the port.
        let socket = try BoundSocket()
        let client = try HTTPClient(configuration: configuration())
        let error = await client.failure(of: HTTPClientRequest(url: "http://127.0.0.1:\(socket.port)/"))
        guard case .connectFailed(let message) = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertFalse(message.isEmpty, "carries curl's error text")
        XCTAssertEqual(client.statistics.requestsFailed, 1)
        await client.shutdown()
    }

    func testShutdownFailsRunningAndLaterRequestsAndIsIdempotent() async throws {
        let directory = try TemporaryDirectory()
        let server = try await PeerProcess.pythonHTTP(in: directory)
        defer { server.stop() }
        let client = try HTTPClient(configuration: configuration())
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/slow?ms=5000")
        let running = Task { await client.failure(of: request) }
        let started = await eventually { client.statistics.activeTransfers == 1 }
        XCTAssertTrue(started)

        await client.shutdown()
        let runningError = await running.value
        XCTAssertEqual(runningError, .shutdown)
        XCTAssertEqual(client.statistics.activeTransfers, 0)
        let laterError = await client.failure(of: HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/echo"))
        XCTAssertEqual(laterError, .shutdown)
        await client.shutdown() // returns at once
    }

    func testDroppingTheClientStopsItsLoopThread() async throws {
        weak var loop: AnyObject?
        do {
            let client = try HTTPClient(configuration: configuration())
            loop = client.eventLoopForTesting
            XCTAssertNotNil(loop)
            // Exercise the thread once.
            let socket = try BoundSocket()
            _ = await client.failure(of: HTTPClientRequest(url: "http://127.0.0.1:\(socket.port)/"))
        }
        let released = await eventually { loop == nil }
        XCTAssertTrue(released, "the loop thread exits and releases the loop after the client is dropped")
    }

    func testManyClientsCanComeAndGo() async throws {
        for _ in 0..<20 {
            let client = try HTTPClient(configuration: configuration())
            if Bool.random() { await client.shutdown() }
        }
    }

    func testInvalidConfigurationIsRejected() {
        let cases: [(String, (inout HTTPClient.Configuration) -> Void)] = [
            ("maxConnectionsPerHost", { $0.maxConnectionsPerHost = 0 }),
            ("maxConcurrentStreams", { $0.maxConcurrentStreams = 0 }),
            ("maxTotalConnections", { $0.maxTotalConnections = -1 }),
            ("maxCachedConnections", { $0.maxCachedConnections = 0 }),
            ("connectTimeout", { $0.connectTimeout = .zero }),
            ("defaultTimeout", { $0.defaultTimeout = .milliseconds(-1) }),
            ("maxResponseBytes", { $0.maxResponseBytes = -1 }),
            ("caFile", { $0.caFile = "/nonexistent/ca.pem" }),
        ]
        for (field, adjust) in cases {
            XCTAssertThrowsError(try HTTPClient(configuration: configuration(adjust)), field) { error in
                guard case .invalidConfiguration(let message) = error as? HTTPClientError else {
                    return XCTFail("\(field): \(error)")
                }
                XCTAssertTrue(message.contains(field), "\(message) names \(field)")
            }
        }
    }

    func testDurationsBecomeWholeMillisecondsRoundedUp() {
        XCTAssertEqual(Duration.nanoseconds(1).curlMilliseconds, 1)
        XCTAssertEqual(Duration.milliseconds(250).curlMilliseconds, 250)
        XCTAssertEqual((Duration.seconds(1) + .nanoseconds(1)).curlMilliseconds, 1001, "never fires early")
        XCTAssertEqual(Duration.seconds(Int64.max).curlMilliseconds, Int(Int32.max), "saturates")
        XCTAssertEqual(Duration.zero.curlMilliseconds, 1, "0 would mean no timeout to curl")
    }
}

/// An IPv4 TCP socket bound to 127.0.0.1:0 and never listening.
final class BoundSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PeerError(message: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw PeerError(message: "bind() failed")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
