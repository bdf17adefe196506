import Synchronization
import Testing
@testable import TandemHTTP

@Suite("Body limit")
struct BodyLimitTests {
    static let limit = 1024

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    static func countingRouter(_ counter: Counter) -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.POST, "/upload", .sync { request in
            counter.value.add(1, ordering: .relaxed)
            return .text(.ok, "got \(request.body.count)")
        })
        return router
    }

    @Test("Content-Length over the limit gets 413 at once, without running the handler")
    func declaredTooLarge() async throws {
        let counter = Counter()
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.countingRouter(counter), records: records) { $0.maxBodyBytes = Self.limit }
        let response = try await onThread { () throws -> RawHTTPResponse in
            let client = try RawHTTPClient(port: port)
            // Headers only: the 413 must arrive without the client sending the body.
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 2048\r\n\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 413)
        #expect(response.bodyText == "{\"error\":\"payload too large\",\"limit\":1024}")
        #expect(response.header("Content-Type") == "application/json")
        #expect(counter.value.load(ordering: .relaxed) == 0)
        #expect(await eventually { records.all.count == 1 })
        #expect(records.all.first?.status == 413)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("a chunked body growing past the limit gets 413")
    func chunkedTooLarge() async throws {
        let counter = Counter()
        let (server, port) = try startServer(router: Self.countingRouter(counter)) { $0.maxBodyBytes = Self.limit }
        let response = try await onThread { () throws -> RawHTTPResponse in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Array("100\r\n".utf8) + [UInt8](repeating: 0x61, count: 256) + [13, 10]
            for _ in 0..<8 { try client.send(chunk) } // 2 KiB in 256-byte chunks
            try client.send("0\r\n\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 413)
        #expect(response.bodyText.contains("\"limit\":1024"))
        #expect(counter.value.load(ordering: .relaxed) == 0)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("an endless chunked body past the limit is cut off: connection dropped, reported with status 0")
    func endlessChunkedBody() async throws {
        let counter = Counter()
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.countingRouter(counter), records: records) { $0.maxBodyBytes = Self.limit }
        let (sent, closed) = try await onThread { () throws -> (Int, Bool) in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Array("1000\r\n".utf8) + [UInt8](repeating: 0x61, count: 4096) + [13, 10]
            var sent = 0
            do {
                while sent < 4 * 1024 * 1024 { // far beyond limit + allowance (64 KiB)
                    try client.send(chunk)
                    sent += 4096
                }
            } catch {
                // Expected: the server closed the connection while we were sending.
            }
            return (sent, client.peerClosed())
        }
        #expect(sent < 4 * 1024 * 1024)
        #expect(closed)
        #expect(counter.value.load(ordering: .relaxed) == 0)
        #expect(await eventually { records.all.count == 1 })
        #expect(records.all.first?.status == 0)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("an ambiguous body length (two Content-Lengths, or Content-Length with chunked) gets 400",
          arguments: ["Content-Length: 3\r\nContent-Length: 5\r\n", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"])
    func ambiguousLength(headers: String) async throws {
        let counter = Counter()
        let (server, port) = try startServer(router: Self.countingRouter(counter))
        let response = try await onThread { () throws -> RawHTTPResponse in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\n\(headers)\r\n5\r\nabcde\r\n0\r\n\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 400)
        #expect(response.closesConnection)
        #expect(counter.value.load(ordering: .relaxed) == 0)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("a body exactly at the limit is accepted, chunked or not")
    func atLimit() async throws {
        let counter = Counter()
        let (server, port) = try startServer(router: Self.countingRouter(counter)) { $0.maxBodyBytes = Self.limit }
        let (plain, chunked) = try await onThread { () throws -> (RawHTTPResponse, RawHTTPResponse) in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1024\r\n\r\n")
            try client.send([UInt8](repeating: 0x62, count: 1024))
            let plain = try client.readResponse()
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send(Array("400\r\n".utf8) + [UInt8](repeating: 0x63, count: 1024) + Array("\r\n0\r\n\r\n".utf8))
            return (plain, try client.readResponse())
        }
        #expect(plain.status == 200)
        #expect(plain.bodyText == "got 1024")
        #expect(chunked.status == 200)
        #expect(chunked.bodyText == "got 1024")
        #expect(counter.value.load(ordering: .relaxed) == 2)
        await server.shutdown(gracePeriod: .seconds(5))
    }
}
