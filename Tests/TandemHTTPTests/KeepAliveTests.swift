import Testing
@testable import TandemHTTP

@Suite("Keep-alive")
struct KeepAliveTests {
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.GET, "/hello", .sync { _ in .text(.ok, "hello") })
        router.add(.GET, "/later", .async { _ in
            await Task.yield()
            return .text(.ok, "later")
        })
        router.add(.POST, "/echo", .sync { request in .bytes(.ok, request.body) })
        return router
    }

    @Test("several requests on one TCP connection are all answered and none closes it")
    func reusesOneConnection() async throws {
        let (server, port) = try startServer(router: Self.router())
        let responses = try await onThread { () throws -> [RawHTTPResponse] in
            let client = try RawHTTPClient(port: port)
            var responses: [RawHTTPResponse] = []
            for _ in 0..<3 {
                try client.send(get("/hello"))
                responses.append(try client.readResponse())
            }
            try client.send(get("/later"))
            responses.append(try client.readResponse())
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde")
            responses.append(try client.readResponse())
            try client.send(get("/hello"))
            responses.append(try client.readResponse())
            return responses
        }
        #expect(responses.map(\.status) == [200, 200, 200, 200, 200, 200])
        #expect(responses.map(\.bodyText) == ["hello", "hello", "hello", "later", "abcde", "hello"])
        #expect(responses.allSatisfy { !$0.closesConnection })
        #expect(responses[0].header("Content-Type") == "text/plain; charset=utf-8")
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("pipelined requests sent in one write are answered in order")
    func pipelined() async throws {
        let (server, port) = try startServer(router: Self.router())
        let bodies = try await onThread { () throws -> [String] in
            let client = try RawHTTPClient(port: port)
            try client.send(get("/hello") + get("/later") + get("/hello"))
            return try (0..<3).map { _ in try client.readResponse().bodyText }
        }
        #expect(bodies == ["hello", "later", "hello"])
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("HEAD is served by the GET route: length but no body, and the connection stays usable")
    func headUsesGetRoute() async throws {
        let (server, port) = try startServer(router: Self.router())
        let (head, next) = try await onThread { () throws -> (RawHTTPResponse, RawHTTPResponse) in
            let client = try RawHTTPClient(port: port)
            try client.send(get("/hello", method: "HEAD"))
            let head = try client.readResponse(bodyless: true)
            try client.send(get("/hello"))
            return (head, try client.readResponse())
        }
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "5")
        // Had the body been sent after the HEAD response, it would prefix the next response.
        #expect(next.status == 200)
        #expect(next.bodyText == "hello")
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("a client's Connection: close is honoured")
    func clientClose() async throws {
        let (server, port) = try startServer(router: Self.router())
        let (response, closed) = try await onThread { () throws -> (RawHTTPResponse, Bool) in
            let client = try RawHTTPClient(port: port)
            try client.send(get("/hello", extraHeaders: "Connection: close\r\n"))
            let response = try client.readResponse()
            return (response, client.peerClosed())
        }
        #expect(response.status == 200)
        #expect(response.closesConnection)
        #expect(closed)
        await server.shutdown(gracePeriod: .seconds(5))
    }
}
