import Testing
@testable import TandemHTTP

@Suite("Routing over the wire")
struct RoutingTests {
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.GET, "/items", .sync { _ in .text(.ok, "list") })
        router.add(.POST, "/items", .sync { _ in .text(.created, "created") })
        router.add(.GET, "/users/{id}/posts/{post}", .sync { request in
            .text(.ok, "user=\(request.pathParameters["id"] ?? "-") post=\(request.pathParameters["post"] ?? "-") route=\(request.route ?? "-")")
        })
        router.add(.GET, "/users/{id}", .sync { request in .text(.ok, "param \(request.pathParameters["id"] ?? "-")") })
        router.add(.GET, "/users/me", .sync { _ in .text(.ok, "literal me") })
        router.add(.GET, "/files/{name}", .sync { request in
            .text(.ok, "name=\(request.pathParameters["name"] ?? "-")|path=\(request.path)|target=\(request.target)")
        })
        router.add(.GET, "/search", .sync { request in
            let q = request.query
            let text = "q=\(q["q"] ?? "-")|x=\(q["x"] ?? "-")|tags=\(q.values(for: "tag").joined(separator: ","))"
                + "|flag=\(q["flag"].map { "[\($0)]" } ?? "-")|FLAG=\(q["FLAG"] ?? "-")|ci=\(q.value(caseInsensitive: "FLAG").map { "[\($0)]" } ?? "-")"
                + "|target=\(request.target)"
            return .text(.ok, text)
        })
        return router
    }

    /// Sends each raw request on one connection and returns the responses.
    static func exchange(port: UInt16, _ requests: [String]) async throws -> [RawHTTPResponse] {
        try await onThread { () throws -> [RawHTTPResponse] in
            let client = try RawHTTPClient(port: port)
            return try requests.map { request in
                try client.send(request)
                return try client.readResponse()
            }
        }
    }

    @Test("unknown path is 404; known path with the wrong method is 405 with the exact Allow header")
    func notFoundVersusMethodNotAllowed() async throws {
        let (server, port) = try startServer(router: Self.router())
        let responses = try await Self.exchange(port: port, [
            get("/nowhere"),
            get("/items", method: "DELETE"),
            get("/users/7", method: "PUT"),
            get("/items"),
        ])
        #expect(responses[0].status == 404)
        #expect(responses[0].header("Allow") == nil)
        #expect(responses[1].status == 405)
        #expect(responses[1].header("Allow") == "GET, HEAD, POST")
        #expect(responses[2].status == 405)
        #expect(responses[2].header("Allow") == "GET, HEAD")
        #expect(responses[3].status == 200) // the error responses did not close the connection
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("unsupported methods get 501 Not Implemented", arguments: ["TRACE", "BREW", "get"])
    func unsupportedMethod(method: String) async throws {
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.router(), records: records)
        let responses = try await Self.exchange(port: port, [get("/items", method: method), get("/items")])
        #expect(responses[0].status == 501)
        #expect(responses[1].status == 200)
        #expect(await eventually { records.all.count == 2 })
        #expect(records.all.first?.method == method)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("path parameters are extracted and the route pattern is reported")
    func pathParameters() async throws {
        let (server, port) = try startServer(router: Self.router())
        let responses = try await Self.exchange(port: port, [get("/users/42/posts/abc")])
        #expect(responses[0].bodyText == "user=42 post=abc route=/users/{id}/posts/{post}")
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("a literal segment beats a parameter")
    func literalBeatsParameter() async throws {
        let (server, port) = try startServer(router: Self.router())
        let responses = try await Self.exchange(port: port, [get("/users/me"), get("/users/mo")])
        #expect(responses.map(\.bodyText) == ["literal me", "param mo"])
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("the path is percent-decoded per segment while the raw target is preserved")
    func percentDecoding() async throws {
        let (server, port) = try startServer(router: Self.router())
        let responses = try await Self.exchange(port: port, [get("/files/a%20b%2Fc+d?k=%2B"), get("/fil%65s/x")])
        #expect(responses[0].status == 200)
        #expect(responses[0].bodyText == "name=a b/c+d|path=/files/a b/c+d|target=/files/a%20b%2Fc+d?k=%2B")
        #expect(responses[1].bodyText == "name=x|path=/files/x|target=/fil%65s/x")
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("the query is parsed with form rules: '+' is space, %XX decoded, repeats kept, case-sensitive")
    func queryParsing() async throws {
        let (server, port) = try startServer(router: Self.router())
        let target = "/search?q=hello+big%20world&x=%41%2b%26&tag=1&tag=2&&flag&tag=3"
        let responses = try await Self.exchange(port: port, [get(target)])
        #expect(responses[0].bodyText == "q=hello big world|x=A+&|tags=1,2,3|flag=[]|FLAG=-|ci=[]|target=\(target)")
        await server.shutdown(gracePeriod: .seconds(5))
    }
}
