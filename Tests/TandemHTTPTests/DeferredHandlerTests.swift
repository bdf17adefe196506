import Foundation
import Synchronization
import Testing
@testable import TandemHTTP
import TandemTestSupport

/// `.deferred` handlers: the connection waits for the responder, answered on the worker thread at once,
/// or later from another thread; a dropped responder answers 500 and a second answer is ignored.
@Suite("Deferred handlers")
struct DeferredHandlerTests {
    /// Responders parked by `/parked` until the test answers them.
    final class Parking: Sendable {
        let responders = Mutex<[Responder]>([])
        var count: Int { responders.withLock { $0.count } }
        func take() -> [Responder] { responders.withLock { taken in defer { taken.removeAll() }; return taken } }
    }

    static func router(_ parking: Parking) -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.GET, "/now", .deferred { _, responder in
            responder.respond(.text(.ok, "now"))
            responder.respond(.text(.ok, "ignored"))
        })
        router.add(.GET, "/thread", .deferred { _, responder in
            Thread.detachNewThread { responder.respond(.text(.accepted, "from a thread")) }
        })
        router.add(.GET, "/dropped", .deferred { _, _ in })
        router.add(.GET, "/empty", .sync { _ in .empty() })
        router.add(.PUT, "/empty", .deferred { _, responder in
            Thread.detachNewThread { responder.respond(.empty()) }
        })
        router.add(.POST, "/parked", .deferred { request, responder in
            let size = request.body.count
            parking.responders.withLock { $0.append(Responder { _ in responder.respond(.text(.ok, "\(size)")) }) }
        })
        return router
    }

    @Test("answered at once, from another thread, or dropped (500); the connection stays usable")
    func answers() async throws {
        let parking = Parking()
        let (server, port) = try startServer(router: Self.router(parking))
        let responses = try await onThread { () throws -> [RawHTTPResponse] in
            let client = try RawHTTPClient(port: port)
            return try ["/now", "/thread", "/dropped", "/now"].map { path in
                try client.send(get(path))
                return try client.readResponse()
            }
        }
        #expect(responses.map(\.status) == [200, 202, 500, 200])
        #expect(responses.map(\.bodyText)[0...1] == ["now", "from a thread"])
        #expect(responses.allSatisfy { !$0.closesConnection })
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("many connections wait at once; each gets its own answer when the test gives it")
    func later() async throws {
        let parking = Parking()
        let (server, port) = try startServer(router: Self.router(parking))
        let clients = 8
        let bodies = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<clients {
                    group.addTask {
                        try await onThread { () throws -> String in
                            let client = try RawHTTPClient(port: port)
                            let body = String(repeating: "x", count: index)
                            try client.send("POST /parked HTTP/1.1\r\nHost: x\r\nContent-Length: \(index)\r\n\r\n\(body)")
                            return try client.readResponse().bodyText
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await eventually { parking.count == clients })
        for responder in parking.take() { responder.respond(.text(.ok, "unused")) }
        #expect(Set(try await bodies.value) == Set((0..<clients).map { "\($0)" }))
        await server.shutdown(gracePeriod: .seconds(5))
    }

    /// Bodiless responses without headers share one libmicrohttpd response per status across connections and
    /// worker threads; responses with a body are built per request as before.
    @Test("204s answered at once and later, on several connections at once, between answers with bodies")
    func sharedEmptyResponses() async throws {
        let (server, port) = try startServer(router: Self.router(Parking())) { $0.threads = 2 }
        let transcripts = try await withRawClients(4, port: port) { client, _ in
            try (0..<30).map { index in
                try client.send(get(["/empty", "/now", "/empty"][index % 3], method: index % 3 == 2 ? "PUT" : "GET"))
                let response = try client.readResponse()
                let length = response.header("Content-Length") ?? "none"
                return "\(response.status) \(response.bodyText) \(length) \(response.closesConnection)"
            }
        }
        let expected = (0..<30).map { ["204  none false", "200 now 3 false", "204  none false"][$0 % 3] }
        #expect(transcripts.count == 4)
        for transcript in transcripts { #expect(transcript == expected) }
        await server.shutdown(gracePeriod: .seconds(5))
    }
}
