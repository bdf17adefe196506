import XCTest
@testable import TandemProviders

/// The header-line state machine, one line per event.
final class ResponseHeadAccumulatorTests: XCTestCase {
    private func accumulate(_ lines: [String]) -> ResponseHeadAccumulator {
        var head = ResponseHeadAccumulator()
        for line in lines { head.consume(line: Array(line.utf8)) }
        return head
    }

    func testFieldsAreLowerCasedAndTrimmed() {
        let head = accumulate(["HTTP/1.1 200 OK\r\n", "Content-Type:  text/plain \r\n", "X-A:b\r\n", "\r\n"])
        XCTAssertEqual(head.statusLineVersion, .http1_1)
        XCTAssertEqual(head.fields, [HTTPClientHeader("content-type", "text/plain"), HTTPClientHeader("x-a", "b")])
    }

    func testAStatusLineStartsOverSoInterimFieldsAreDropped() {
        let head = accumulate(["HTTP/1.1 100 Continue\r\n", "X-Interim: 1\r\n", "\r\n",
                               "HTTP/1.1 200 OK\r\n", "X-Final: 2\r\n", "\r\n"])
        XCTAssertEqual(head.fields, [HTTPClientHeader("x-final", "2")])
    }

    func testHTTP2StatusLineAndValuesWithColons() {
        let head = accumulate(["HTTP/2 200 \r\n", "apns-id: a:b:c\r\n", "\r\n"])
        XCTAssertEqual(head.statusLineVersion, .http2)
        XCTAssertEqual(head.fields, [HTTPClientHeader("apns-id", "a:b:c")])
    }

    func testFoldedLinesContinueThePreviousValue() {
        let head = accumulate(["HTTP/1.1 200 OK\r\n", "X-Long: one\r\n", "\t two \r\n", "\r\n"])
        XCTAssertEqual(head.fields, [HTTPClientHeader("x-long", "one two")])
    }

    func testLinesWithoutANameAreIgnoredAndTrailersAppend() {
        let head = accumulate(["HTTP/1.1 200 OK\r\n", "garbage\r\n", ": no name\r\n", "X-A: 1\r\n", "\r\n",
                               "X-Trailer: t\r\n", "\r\n"])
        XCTAssertEqual(head.fields, [HTTPClientHeader("x-a", "1"), HTTPClientHeader("x-trailer", "t")])
    }

    func testCaseInsensitiveLookup() {
        let response = HTTPClientResponse(status: 200, headers: [HTTPClientHeader("x-a", "1"), HTTPClientHeader("x-a", "2")],
                                          body: [], version: .http2)
        XCTAssertEqual(response.header("X-A"), "1")
        XCTAssertEqual(response.headers(named: "x-A"), ["1", "2"])
        XCTAssertNil(response.header("x-b"))
    }
}
