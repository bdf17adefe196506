import TandemCore
import TandemHTTP

/// The SCG messaging API's HTTP routes, under `/scg-external-api/api/v1/messaging`:
///
/// | route | answer |
/// |---|---|
/// | `POST /message_requests` (also with a trailing `/`) | 200 `{"id":"<message request id>"}`, after the commit |
/// | `GET /message_requests?offset=&limit=` | `{"list":[request…],"total":N}`, newest first |
/// | `GET /message_requests/{id}` | the request with `state` and its counts |
/// | `POST /message_requests/{id}` `{"state":"CANCELED"}` | 204 |
/// | `DELETE /message_requests/{id}` | 204 |
/// | `GET /message_requests/{id}/messages` | `{"list":[message…],"total":N}` |
/// | `GET /messages/{id}` | one recipient's message |
///
/// Every route needs `Authorization: Bearer <token>` (see ``SCGMessagingService``); errors are
/// ``SCGError`` JSON.
public struct SCGMessagingEndpoint: Sendable {
    public static let basePath = "/scg-external-api/api/v1/messaging"

    let service: SCGMessagingService

    public init(service: SCGMessagingService) {
        self.service = service
    }

    /// Paths are written out whole (not from ``basePath``), so that the OpenAPI check finds every route in the sources.
    public func register(in router: inout HTTPRouter) {
        let create: Handler = .async { request in
            Self.response(await self.service.create(authorization: Self.authorization(request),
                                                    idempotencyKey: request.headers["idempotency-key"], body: request.body))
        }
        let list: Handler = .async { request in
            Self.response(await self.service.list(authorization: Self.authorization(request),
                                            offset: request.query["offset"], limit: request.query["limit"]))
        }
        router.add(.POST, "/scg-external-api/api/v1/messaging/message_requests", create)
        router.add(.GET, "/scg-external-api/api/v1/messaging/message_requests", list)
        router.add(.GET, "/scg-external-api/api/v1/messaging/message_requests/{id}", .async { request in
            Self.response(await self.service.request(authorization: Self.authorization(request), id: Self.id(request)))
        })
        router.add(.POST, "/scg-external-api/api/v1/messaging/message_requests/{id}", .async { request in
            Self.response(await self.service.changeState(authorization: Self.authorization(request), id: Self.id(request),
                                                         body: request.body))
        })
        router.add(.DELETE, "/scg-external-api/api/v1/messaging/message_requests/{id}", .async { request in
            Self.response(await self.service.delete(authorization: Self.authorization(request), id: Self.id(request)))
        })
        router.add(.GET, "/scg-external-api/api/v1/messaging/message_requests/{id}/messages", .async { request in
            Self.response(await self.service.recipientMessages(authorization: Self.authorization(request), id: Self.id(request)))
        })
        router.add(.GET, "/scg-external-api/api/v1/messaging/messages/{id}", .async { request in
            Self.response(await self.service.recipientMessage(authorization: Self.authorization(request), id: Self.id(request)))
        })
    }

    private static func authorization(_ request: Request) -> String? { request.headers["authorization"] }

    private static func id(_ request: Request) -> String { request.pathParameters["id"] ?? "" }

    static func response(_ reply: WireReply) -> Response {
        var response = Response(status: HTTPStatus(reply.status), body: reply.body)
        response.headers.set(name: "Content-Type", value: reply.contentType)
        // A cluster node that cannot take the request now (docs/cluster.md): the client tries again shortly.
        if reply.status == 503 { response.headers.set(name: "Retry-After", value: "2") }
        return response
    }
}
