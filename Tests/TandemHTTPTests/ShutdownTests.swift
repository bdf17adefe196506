#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import TandemHTTP

@Suite("Graceful shutdown")
struct ShutdownTests {
    static func router(gate: Gate) -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.GET, "/slow", .async { _ in
            await gate.wait()
            return .text(.ok, "finally done")
        })
        router.add(.GET, "/fast", .sync { _ in .text(.ok, "fast") })
        return router
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    }

    @Test("drains an in-flight async request: new connections are refused, the slow request completes, then shutdown returns")
    func drains() async throws {
        let gate = Gate()
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.router(gate: gate), records: records)

        let slow = Task {
            try await onThread { () throws -> RawHTTPResponse in
                let client = try RawHTTPClient(port: port, receiveTimeoutSeconds: 20)
                try client.send(get("/slow"))
                return try client.readResponse()
            }
        }
        #expect(await eventually { gate.arrivals == 1 })
        #expect(server.inFlightRequests == 1)

        let finished = Flag()
        let shutdown = Task {
            await server.shutdown(gracePeriod: .seconds(10))
            finished.set()
        }
        let refused = await eventually {
            RawHTTPClient.connectErrno(port: port) == ECONNREFUSED
        }
        #expect(refused)
        #expect(!finished.isSet) // still draining
        #expect(server.inFlightRequests == 1)

        gate.open()
        let response = try await slow.value
        #expect(response.status == 200)
        #expect(response.bodyText == "finally done")
        #expect(response.closesConnection) // responses during drain close their connection
        await shutdown.value
        #expect(finished.isSet)
        #expect(server.inFlightRequests == 0)
        #expect(records.all.map(\.status) == [200])
    }

    @Test("a keep-alive connection opened before shutdown is answered with Connection: close while draining")
    func keepAliveDuringDrain() async throws {
        let gate = Gate()
        let (server, port) = try startServer(router: Self.router(gate: gate))
        // Open a connection, use it once, keep it open.
        let client = try await onThread { () throws -> RawHTTPClientBox in
            let client = try RawHTTPClient(port: port)
            try client.send(get("/fast"))
            _ = try client.readResponse()
            return RawHTTPClientBox(client)
        }
        let slow = Task {
            try await onThread { () throws -> Int in
                let other = try RawHTTPClient(port: port, receiveTimeoutSeconds: 20)
                try other.send(get("/slow"))
                return try other.readResponse().status
            }
        }
        #expect(await eventually { gate.arrivals == 1 })
        let shutdown = Task { await server.shutdown(gracePeriod: .seconds(10)) }
        #expect(await eventually { RawHTTPClient.connectErrno(port: port) == ECONNREFUSED })
        let (second, closed) = try await onThread { () throws -> (RawHTTPResponse, Bool) in
            try client.client.send(get("/fast"))
            let response = try client.client.readResponse()
            return (response, client.client.peerClosed())
        }
        #expect(second.status == 200)
        #expect(second.closesConnection)
        #expect(closed)
        gate.open()
        #expect(try await slow.value == 200)
        await shutdown.value
    }

    @Test("when the grace period ends, a stuck async request is abandoned and shutdown still returns")
    func graceExpires() async throws {
        let gate = Gate()
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.router(gate: gate), records: records)
        let stuck = Task {
            try await onThread { () throws -> Int in
                let client = try RawHTTPClient(port: port, receiveTimeoutSeconds: 20)
                try client.send(get("/slow"))
                do {
                    return try client.readResponse().status // 503 if it got out before the daemon stopped
                } catch RawClientError.closedByPeer {
                    return 0
                } catch RawClientError.receiveFailed(let code) where code == ECONNRESET {
                    return 0
                }
            }
        }
        #expect(await eventually { gate.arrivals == 1 })
        let started = ContinuousClock.now
        await server.shutdown(gracePeriod: .milliseconds(300))
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(300))
        #expect(elapsed < .seconds(5))
        let status = try await stuck.value
        #expect(status == 503 || status == 0)
        gate.open() // the abandoned handler finishes later; it must not touch the closed connection
        #expect(await eventually { records.all.count == 1 })
        #expect(server.inFlightRequests == 0)
    }

    @Test("shutdown is idempotent and a stopped server cannot be restarted")
    func idempotent() async throws {
        let (server, port) = try startServer(router: Self.router(gate: Gate()))
        async let first: Void = server.shutdown(gracePeriod: .seconds(1))
        async let second: Void = server.shutdown(gracePeriod: .seconds(1))
        _ = await (first, second)
        await server.shutdown(gracePeriod: .seconds(1))
        #expect(server.port == nil)
        #expect(RawHTTPClient.connectErrno(port: port) == ECONNREFUSED)
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
    }
}
