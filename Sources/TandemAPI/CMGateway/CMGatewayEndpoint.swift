import TandemCore
import TandemEngine
import TandemHTTP

/// The gateway's HTTP routes:
/// - `POST /v1.0/message` — MESSAGES as JSON;
/// - `POST /gateway.ashx` — MESSAGES as XML (a body starting with `{` is read as JSON, as CM does);
/// - `GET /gateway.ashx?producttoken=…&body=…&to=…&from=…` — the GET form;
/// - `GET /v1.0/message/{id}` — one message's recipients, statuses and event timelines (by id, else by
///   reference), and `GET /v1.0/message?reference=…` — every message with that reference;
/// - `POST /v1.0/message/{id}/fallback` — OTP manual fallback: the SMS now, the push terminated where the
///   policy says so.
/// Every route authenticates with the product token (body, `producttoken` query parameter, or the
/// `X-CM-PRODUCTTOKEN` header) and sees only its own account's messages.
public struct CMGatewayEndpoint: Sendable {
    let service: CMGatewayService

    public init(service: CMGatewayService) {
        self.service = service
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.POST, "/v1.0/message", .async { request in await self.submit(request, format: .json) })
        router.add(.POST, "/gateway.ashx", .async { request in
            await self.submit(request, format: request.body.first(where: { !Self.isSpace($0) }) == UInt8(ascii: "{") ? .json : .xml)
        })
        router.add(.GET, "/gateway.ashx", .async { request in await self.submit(request, format: .get) })
        router.add(.GET, "/v1.0/message", .async { request in await self.lookup(request, idOrReference: nil) })
        router.add(.GET, "/v1.0/message/{id}", .async { request in
            await self.lookup(request, idOrReference: request.pathParameters["id"])
        })
        router.add(.POST, "/v1.0/message/{id}/fallback", .async { request in await self.fallback(request) })
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0xEF || byte == 0xBB || byte == 0xBF
    }

    private func submit(_ request: Request, format: CMRequestFormat) async -> Response {
        let submission = CMGatewayService.Submission(
            format: format, body: request.body, query: request.query.map { (name: $0.name, value: $0.value) },
            headerToken: request.headers["x-cm-producttoken"], idempotencyKey: request.headers["idempotency-key"],
            target: request.method.rawValue + " " + request.path)  // not "\(request.method)": an enum by reflection
        return Self.response(await service.submit(submission))
    }

    private func lookup(_ request: Request, idOrReference: String?) async -> Response {
        let reference = idOrReference ?? request.query.first(where: { $0.name.lowercased() == "reference" })?.value
        guard let reference, !reference.isEmpty else {
            return Self.response(service.failure(CMRequestError(code: .invalidField, details: "give a message id or ?reference="),
                                                 format: .json))
        }
        return Self.response(await service.lookup(token: Self.token(request), idOrReference: reference, byIDFirst: idOrReference != nil))
    }

    private func fallback(_ request: Request) async -> Response {
        Self.response(await service.manualFallback(token: Self.token(request), idOrReference: request.pathParameters["id"] ?? ""))
    }

    private static func token(_ request: Request) -> String? {
        request.headers["x-cm-producttoken"]
            ?? request.query.first(where: { $0.name.lowercased() == "producttoken" })?.value
    }

    static func response(_ reply: CMGatewayService.Reply) -> Response {
        var response = Response(status: HTTPStatus(reply.status), body: reply.body)
        response.headers.set(name: "Content-Type", value: reply.contentType)
        // A cluster node that cannot take the request now (docs/cluster.md): the client tries again shortly.
        if reply.status == 503 { response.headers.set(name: "Retry-After", value: "2") }
        return response
    }
}
