import Testing
@testable import TandemHTTP

@Suite("Value types")
struct ValueTypeTests {
    @Test("query parameters follow form-encoding rules")
    func query() {
        let query = QueryParameters(rawQuery: "a=1&b=x+y&a=2&c&%41=%zz&=v&&d=e=f")
        #expect(query.values(for: "a") == ["1", "2"])
        #expect(query["b"] == "x y")
        #expect(query["c"] == "")
        #expect(query["A"] == "%zz") // invalid escape kept literally
        #expect(query[""] == "v")
        #expect(query["d"] == "e=f")
        #expect(query["B"] == nil)
        #expect(query.value(caseInsensitive: "B") == "x y")
        #expect(query.count == 7)
    }

    @Test("headers keep order and duplicates and look up case-insensitively")
    func headers() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        headers.set(name: "X-A", value: "3")
        #expect(headers.values(for: "x-a") == ["3"])
        headers.remove(name: "CONTENT-TYPE")
        #expect(headers["Content-Type"] == nil)
        #expect(headers.map(\.name) == ["X-A"])
    }

    @Test("Request derives path and query from the raw target")
    func requestInit() {
        let request = Request(method: .GET, target: "/a%2Fb/c?x=1+2")
        #expect(request.path == "/a/b/c")
        #expect(request.query["x"] == "1 2")
        #expect(request.target == "/a%2Fb/c?x=1+2")
        let absolute = Request(method: .GET, target: "http://example.com/p?q=1")
        #expect(absolute.path == "/p")
        #expect(absolute.query["q"] == "1")
    }

    @Test("statuses carry reason phrases")
    func status() {
        #expect(HTTPStatus.payloadTooLarge.rawValue == 413)
        #expect(HTTPStatus.requestHeaderFieldsTooLarge.reasonPhrase == "Request Header Fields Too Large")
        #expect(HTTPStatus(299).reasonPhrase == "")
    }
}
