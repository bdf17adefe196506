import Testing
@testable import TandemHTTP

@Suite("Concurrency", .serialized) // serialized: keeps open descriptors well under a 1024 ulimit
struct ConcurrencyTests {
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.GET, "/sync/{n}", .sync { request in .text(.ok, "sync \(request.pathParameters["n"] ?? "-")") })
        router.add(.GET, "/async/{n}", .async { request in
            await Task.yield()
            return .text(.ok, "async \(request.pathParameters["n"] ?? "-")")
        })
        return router
    }

    @Test("200 clients, each on its own connection, all get their own answer",
          arguments: ["sync", "async"], [HTTPServer.Configuration.EventLoop.poll, .epoll])
    func manyConnections(kind: String, eventLoop: HTTPServer.Configuration.EventLoop) async throws {
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.router(), records: records) { $0.eventLoop = eventLoop }
        let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for n in 0..<200 {
                group.addTask {
                    try await onThread { () throws -> (Int, String) in
                        let client = try RawHTTPClient(port: port)
                        try client.send(get("/\(kind)/\(n)"))
                        let response = try client.readResponse()
                        return (n, response.status == 200 ? response.bodyText : "status \(response.status)")
                    }
                }
            }
            var bodies: [Int: String] = [:]
            for try await (n, body) in group { bodies[n] = body }
            return bodies
        }
        #expect(bodies.count == 200)
        #expect((0..<200).allSatisfy { bodies[$0] == "\(kind) \($0)" })
        #expect(await eventually { records.all.count == 200 })
        #expect(records.all.allSatisfy { $0.status == 200 && $0.route == "/\(kind)/{n}" })
        await server.shutdown(gracePeriod: .seconds(5))
        #expect(server.inFlightRequests == 0)
    }

    @Test("50 connections × 4 keep-alive requests all get their own answer", arguments: ["sync", "async"])
    func keepAliveConnections(kind: String) async throws {
        let (server, port) = try startServer(router: Self.router())
        let results = try await withRawClients(50, port: port) { client, connection in
            try (0..<4).map { i in
                try client.send(get("/\(kind)/\(connection * 4 + i)"))
                let response = try client.readResponse()
                return response.closesConnection ? "closed" : response.bodyText
            }
        }.flatMap { $0 }
        #expect(results.count == 200)
        #expect(Set(results) == Set((0..<200).map { "\(kind) \($0)" }))
        await server.shutdown(gracePeriod: .seconds(5))
    }
}
