/// An HTTP response produced by a handler.
///
/// `Content-Length` is always computed by the server from `body`; a
/// `Content-Length` header set here is ignored. `Date` is added by the server.
/// For `HEAD` requests the body is not sent (its length still is).
/// A `Connection: close` header set here makes the server close the
/// connection after this response; other `Connection` values are not honoured.
public struct Response: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response; `utf8JSON` is sent as-is (it is NOT validated).
    public static func json(_ status: HTTPStatus, _ utf8JSON: String) -> Response {
        json(status, Array(utf8JSON.utf8))
    }

    /// A JSON response from already-encoded UTF-8 bytes (NOT validated).
    public static func json(_ status: HTTPStatus, _ utf8JSON: [UInt8]) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: utf8JSON)
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ status: HTTPStatus, _ text: String) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A response with an arbitrary body and content type.
    public static func bytes(_ status: HTTPStatus, _ body: [UInt8], contentType: String = "application/octet-stream") -> Response {
        Response(status: status, headers: ["Content-Type": contentType], body: body)
    }

    /// A response with no body and no `Content-Type` (defaults to 204 No Content).
    public static func empty(_ status: HTTPStatus = .noContent) -> Response {
        Response(status: status)
    }
}
