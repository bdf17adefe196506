import TandemCore
import TandemHTTP

/// myMSP's HTTP routes: `/external/notifications/{subscribe, updatekey, unsubscribe, unsubscribeall, get,
/// send, received}`, each by `GET` with query parameters or by `POST` with an
/// `application/x-www-form-urlencoded` body (UTF-8; query parameters of a POST count after the body's).
/// Answers are `text/plain; charset=utf-8` (``MyMSPAnswer``); a spent abuse limit answers 429 with
/// `Retry-After`.
public struct MyMSPEndpoint: Sendable {
    public static let prefix = "/external/notifications/"
    let service: MyMSPService

    public init(service: MyMSPService) {
        self.service = service
    }

    /// Every method by GET and by POST, each route written out whole (as the OpenAPI route check reads them).
    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/external/notifications/subscribe", route(.subscribe))
        router.add(.POST, "/external/notifications/subscribe", route(.subscribe))
        router.add(.GET, "/external/notifications/updatekey", route(.updatekey))
        router.add(.POST, "/external/notifications/updatekey", route(.updatekey))
        router.add(.GET, "/external/notifications/unsubscribe", route(.unsubscribe))
        router.add(.POST, "/external/notifications/unsubscribe", route(.unsubscribe))
        router.add(.GET, "/external/notifications/unsubscribeall", route(.unsubscribeall))
        router.add(.POST, "/external/notifications/unsubscribeall", route(.unsubscribeall))
        router.add(.GET, "/external/notifications/get", route(.get))
        router.add(.POST, "/external/notifications/get", route(.get))
        router.add(.GET, "/external/notifications/send", route(.send))
        router.add(.POST, "/external/notifications/send", route(.send))
        router.add(.GET, "/external/notifications/received", route(.received))
        router.add(.POST, "/external/notifications/received", route(.received))
    }

    private func route(_ method: MyMSPService.Method) -> Handler {
        let path = Self.prefix + method.rawValue
        return .async { request in await self.handle(request, method: method, path: path) }
    }

    private func handle(_ request: Request, method: MyMSPService.Method, path: String) async -> Response {
        var parameters: MyMSPCodec.Parameters = []
        if request.method == .POST, !request.body.isEmpty {
            parameters = QueryParameters(formBody: request.body).map { ($0.name, $0.value) }
        }
        parameters += request.query.map { ($0.name, $0.value) }
        let reply = await service.handle(method, parameters: parameters, path: path, clientIP: request.remoteAddress)
        var response = Response(status: HTTPStatus(reply.status), body: reply.body)
        response.headers.set(name: "Content-Type", value: MyMSPAnswer.contentType)
        if let seconds = reply.retryAfter { response.headers.set(name: "Retry-After", value: String(seconds)) }
        return response
    }
}
