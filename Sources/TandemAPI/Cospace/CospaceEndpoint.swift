import TandemCore
import TandemHTTP

/// cospace's routes: `GET` and `POST /api/push` (``CospacePushService``, a user's bearer token) and
/// `POST /v1.0/push-events` (``CospaceEventService``, the account's product token). Answers are JSON with
/// `Cache-Control: no-store`; a 401 from `/api/push` carries `WWW-Authenticate: Bearer realm="cospace"`.
public struct CospaceEndpoint: Sendable {
    let tokens: CospacePushService
    let events: CospaceEventService

    public init(tokens: CospacePushService, events: CospaceEventService) {
        self.tokens = tokens
        self.events = events
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/api/push", .async { request in
            Self.response(await self.tokens.tokens(authorization: request.headers["authorization"]))
        })
        router.add(.POST, "/api/push", .async { request in
            Self.response(await self.tokens.change(authorization: request.headers["authorization"], body: request.body))
        })
        router.add(.POST, "/v1.0/push-events", .async { request in
            Self.response(await self.events.post(productToken: request.headers["x-cm-producttoken"], body: request.body))
        })
    }

    static func response(_ reply: CospacePushService.Reply) -> Response {
        var response = Response.json(HTTPStatus(reply.status), reply.document.compactText)
        response.headers.add(name: "Cache-Control", value: "no-store")
        if reply.challenge { response.headers.add(name: "WWW-Authenticate", value: #"Bearer realm="cospace""#) }
        return response
    }
}
