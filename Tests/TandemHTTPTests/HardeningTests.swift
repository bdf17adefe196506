#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TandemHTTP

/// Regression tests for defects found by probing the running server (issue: hardening).
@Suite("Hardening: malformed framing, query arguments, connections per address, buffered bodies")
struct HardeningTests {
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.GET, "/any", .sync { request in .text(.ok, "arguments \(request.query.count)") })
        router.add(.POST, "/items", .async { request in .json(.created, "{\"size\":\(request.body.count)}") })
        return router
    }

    @Test("a field name with a space before the colon is 400 and closes: its body never runs as a second request")
    func spaceBeforeColon() async throws {
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.router(), records: records)
        let smuggled = "GET /any HTTP/1.1\r\nHost: x\r\n\r\n"
        let (answer, closed) = try await onThread { () throws -> (RawHTTPResponse, Bool) in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /items HTTP/1.1\r\nHost: x\r\nContent-Length : \(smuggled.utf8.count)\r\n\r\n\(smuggled)")
            let answer = try client.readResponse()
            return (answer, client.peerClosed())
        }
        #expect(answer.status == 400)
        #expect(answer.bodyText.contains("malformed header field name"))
        #expect(answer.closesConnection)
        #expect(closed)
        #expect(await eventually { records.all.count == 1 })
        #expect(records.all.map(\.status) == [400])
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("a malformed Content-Length is one 400 and closes: its body never runs, no handler is called",
          arguments: ["2, 40", "+2", "2,2", "abc"])
    func malformedContentLength(value: String) async throws {
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.router(), records: records)
        let smuggled = "GET /any HTTP/1.1\r\nHost: x\r\n\r\n"
        let (answer, rest) = try await onThread { () throws -> (RawHTTPResponse, [UInt8]) in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\n\r\n\(smuggled)")
            let answer = try client.readResponse()
            return (answer, try client.readToEnd())
        }
        #expect(answer.status == 400)
        #expect(answer.closesConnection)
        // libmicrohttpd refuses the request itself (the connection is closed by now): neither route ran.
        #expect(records.all.allSatisfy { $0.route == "unmatched" && $0.status != 200 && $0.status != 201 })
        // What follows the 400 is at most the same 400's header block again (libmicrohttpd before 1.0), never
        // an answer from a route.
        let text = String(decoding: answer.body + rest, as: UTF8.self)
        #expect(!text.contains("arguments"))
        #expect(!text.contains("200 OK"))
        if MHDDaemon.answersMalformedFramingOnce {
            #expect(rest.isEmpty && !text.contains("HTTP/1.1"))
        } else {
            withKnownIssue("libmicrohttpd \(MHDDaemon.libraryVersion) writes its 400 header block twice (fixed in 1.0)") {
                #expect(!text.contains("HTTP/1.1"))
            }
        }
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("field names with other separators are refused too; ordinary names pass", arguments: [
        ("X Bad: 1\r\n", 400), ("X(Bad): 1\r\n", 400), ("X-Good_1.2~!: 1\r\n", 200),
    ])
    func fieldNameSyntax(header: String, status: Int) async throws {
        let (server, port) = try startServer(router: Self.router())
        let answer = try await onThread { () throws -> RawHTTPResponse in
            let client = try RawHTTPClient(port: port)
            try client.send(get("/any", extraHeaders: header))
            return try client.readResponse()
        }
        #expect(answer.status == status)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("hundreds of query arguments are answered, and the handler still sees every one")
    func manyQueryArguments() async throws {
        let (server, port) = try startServer(router: Self.router())
        // 300 `aN=1` arguments (1,989 bytes) as probed; 1,500 bare `a` arguments pack the most into 4 KiB.
        let targets = ["/any?" + (0..<300).map { "a\($0)=1" }.joined(separator: "&"),
                       "/any?" + Array(repeating: "a", count: 1_500).joined(separator: "&")]
        let answers = try await onThread { () throws -> [RawHTTPResponse] in
            let client = try RawHTTPClient(port: port)
            return try targets.map { target throws(RawClientError) -> RawHTTPResponse in
                try client.send(get(target))
                return try client.readResponse()
            }
        }
        #expect(answers.map(\.status) == [200, 200])
        #expect(answers.map(\.bodyText) == ["arguments 300", "arguments 1500"])
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("past maxConnectionsPerAddress a connection's request is answered 429 and closed; past the answered excess it is refused at accept")
    func connectionsPerAddress() async throws {
        let limit = 3
        let (server, port) = try startServer(router: Self.router()) { $0.maxConnectionsPerAddress = limit }
        let loopback = try #require(Self.loopbackAddress())
        var clients = try await onThread { () throws -> [RawHTTPClientBox] in
            var held: [RawHTTPClientBox] = []
            for _ in 0..<limit {
                let client = try RawHTTPClient(port: port)
                try client.send(get("/any"))
                #expect(try client.readResponse().status == 200)
                held.append(RawHTTPClientBox(client))
            }
            return held
        }
        let over = try await onThread { () throws -> RawHTTPResponse in
            let client = try RawHTTPClient(port: port)
            try client.send(get("/any"))
            return try client.readResponse()
        }
        #expect(over.status == 429)
        #expect(over.header("Retry-After") == "1")
        #expect(over.closesConnection)
        #expect(over.bodyText.contains("too many connections from this address"))

        // Fill the answered excess with idle connections; the next one is closed unanswered.
        clients += try await onThread { () throws -> [RawHTTPClientBox] in
            try (0..<ConnectionsPerAddress.answeredExcess).map { _ in RawHTTPClientBox(try RawHTTPClient(port: port)) }
        }
        let holding = clients.count
        #expect(await eventually { server.core.connectionsPerAddress.openConnections(of: loopback) == holding })
        let refused = try await onThread { () throws -> Bool in
            let client = try RawHTTPClient(port: port)
            try? client.send(get("/any"))
            return client.peerClosed()
        }
        #expect(refused)

        // Once connections close, the address is served again.
        #expect(holding == limit + ConnectionsPerAddress.answeredExcess)
        clients.removeAll()
        #expect(await eventually { server.core.connectionsPerAddress.openConnections(of: loopback) == 0 })
        let again = try await onThread { () throws -> RawHTTPResponse in
            let client = try RawHTTPClient(port: port)
            try client.send(get("/any"))
            return try client.readResponse()
        }
        #expect(again.status == 200)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("bodies held in memory are bounded server-wide: a body that would pass the bound is 503 with Retry-After, before it is read")
    func bufferedBodyBytes() async throws {
        let body = testBytes(count: 600_000, seed: 3)
        let (server, port) = try startServer(router: Self.router()) {
            $0.maxBodyBytes = 1_000_000
            $0.maxBufferedBodyBytes = 1_000_000
        }
        let budget = server.core.bodyBudget
        // A slow client holds 600 KB of the budget with half its body sent.
        let slow = try await onThread { () throws -> RawHTTPClientBox in
            let slow = try RawHTTPClient(port: port)
            try slow.send("POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            try slow.send(Array(body[..<300_000]))
            return RawHTTPClientBox(slow)
        }
        #expect(await eventually { budget.inUse == body.count })
        let (busy, first) = try await onThread { () throws -> (RawHTTPResponse, RawHTTPResponse) in
            let other = try RawHTTPClient(port: port)
            try other.send("POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            let busy = try other.readResponse()
            try slow.client.send(Array(body[300_000...]))
            return (busy, try slow.client.readResponse())
        }
        // Given back when the first request completed.
        #expect(await eventually { budget.inUse == 0 })
        let later = try await onThread { () throws -> RawHTTPResponse in
            let retry = try RawHTTPClient(port: port)
            try retry.send("POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            try retry.send(body)
            return try retry.readResponse()
        }
        #expect(await eventually { budget.inUse == 0 })
        // A chunked body is counted as it arrives: with 600 KB held, a 500 KB chunked body is 503 at its end.
        var holder: RawHTTPClientBox? = try await onThread { () throws -> RawHTTPClientBox in
            let holder = try RawHTTPClient(port: port)
            try holder.send("POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            try holder.send(Array(body[..<1_000]))
            return RawHTTPClientBox(holder)
        }
        #expect(await eventually { budget.inUse == body.count })
        let chunked = try await onThread { () throws -> RawHTTPResponse in
            let streamed = try RawHTTPClient(port: port)
            try streamed.send("POST /items HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let piece = Array(body[..<100_000])
            for _ in 0..<5 {
                try streamed.send(String(piece.count, radix: 16) + "\r\n")
                try streamed.send(piece)
                try streamed.send("\r\n")
            }
            try streamed.send("0\r\n\r\n")
            return try streamed.readResponse()
        }
        #expect(holder != nil)
        holder = nil  // its request ends with its connection, before the shutdown below
        #expect(await eventually { budget.inUse == 0 })
        #expect(busy.status == 503)
        #expect(busy.header("Retry-After") == "1")
        #expect(busy.bodyText.contains("too many request bodies in memory"))
        #expect(first.status == 201)
        #expect(first.bodyText == "{\"size\":600000}")
        #expect(later.status == 201)
        #expect(chunked.status == 503)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    /// 127.0.0.1 as the server counts it.
    static func loopbackAddress() -> ClientAddress? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ClientAddress($0) }
        }
    }
}

extension MHDDaemon {
    /// Whether this libmicrohttpd answers a malformed `Content-Length` with one response. Versions before 1.0 write
    /// the header block of their own 400 twice (their state machine builds it again after the error): still one
    /// status, a closed connection and no route run, but not one clean answer.
    static var answersMalformedFramingOnce: Bool {
        (libraryVersion.split(separator: ".").first.flatMap { Int($0) } ?? 0) >= 1
    }
}
