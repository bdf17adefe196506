import TandemHTTP

/// The app REST API v1.0 routes (see ``DeviceAPIService``):
/// - `POST|GET|PUT|DELETE /v1.0/deviceregistrations`
/// - `POST /v1.0/deviceregistrations/voicecall`
/// - `GET|PUT /v1.0/messages`
public struct DeviceAPIEndpoint: Sendable {
    let service: DeviceAPIService

    public init(service: DeviceAPIService) {
        self.service = service
    }

    public func register(in router: inout HTTPRouter) {
        let service = service
        router.add(.POST, "/v1.0/deviceregistrations", .async { await service.create($0) })
        router.add(.GET, "/v1.0/deviceregistrations", .async { await service.show($0) })
        router.add(.PUT, "/v1.0/deviceregistrations", .async { await service.update($0) })
        router.add(.DELETE, "/v1.0/deviceregistrations", .async { await service.reset($0) })
        router.add(.POST, "/v1.0/deviceregistrations/voicecall", .async { await service.voiceCall($0) })
        router.add(.GET, "/v1.0/messages", .async { await service.inbox($0) })
        router.add(.PUT, "/v1.0/messages", .deferred { service.receipt($0, responder: $1) })
    }
}
