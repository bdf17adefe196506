import Testing
@testable import TandemHTTP

@Suite("Request bodies")
struct RequestBodyTests {
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.POST, "/echo", .sync { request in .bytes(.ok, request.body) })
        router.add(.PUT, "/echo-async", .async { request in
            await Task.yield()
            return .bytes(.ok, request.body)
        })
        return router
    }

    @Test("a 64 KiB Content-Length body sent in 1,000 separate writes arrives whole")
    func manySmallWrites() async throws {
        let records = RecordCollector()
        let (server, port) = try startServer(router: Self.router(), records: records)
        let payload = testBytes(count: 64 * 1024, seed: 1)
        let (writes, response) = try await onThread { () throws -> (Int, RawHTTPResponse) in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(payload.count)\r\n\r\n")
            var writes = 0
            for piece in 0..<1_000 {
                let start = piece * payload.count / 1_000
                let end = (piece + 1) * payload.count / 1_000
                try client.send(Array(payload[start..<end]))
                writes += 1
            }
            return (writes, try client.readResponse())
        }
        #expect(writes == 1_000)
        #expect(response.status == 200)
        #expect(response.body.count == payload.count)
        #expect(response.body == payload)
        #expect(await eventually { records.all.count == 1 })
        #expect(records.all.first?.requestBytes == payload.count)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    @Test("a Transfer-Encoding: chunked body in many chunks arrives whole (sync and async handlers)",
          arguments: ["POST /echo", "PUT /echo-async"])
    func chunkedBody(requestLine: String) async throws {
        let (server, port) = try startServer(router: Self.router())
        let payload = testBytes(count: 50_000, seed: 2)
        let response = try await onThread { () throws -> RawHTTPResponse in
            let client = try RawHTTPClient(port: port)
            try client.send("\(requestLine) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            var offset = 0
            var size = 1
            while offset < payload.count {
                let end = min(offset + size, payload.count)
                try client.send(Array(String(end - offset, radix: 16).utf8) + [13, 10] + Array(payload[offset..<end]) + [13, 10])
                offset = end
                size = size % 997 + 13
            }
            try client.send("0\r\n\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.body == payload)
        await server.shutdown(gracePeriod: .seconds(5))
    }
}
