import TandemHTTP

/// The TIBCO BWMI routes (see ``BWMIService``), each under the app's base path `/bwmi/{appKey}`:
/// - `PUT|DELETE /bwmi/{appKey}/devices`
/// - `PUT /bwmi/{appKey}/acks`
/// - `GET /bwmi/{appKey}/devices/{deviceToken}/notifications`
/// - `POST /bwmi/{appKey}/notifications` (the enterprise side, by product token)
public struct BWMIEndpoint: Sendable {
    let service: BWMIService

    public init(service: BWMIService) {
        self.service = service
    }

    public func register(in router: inout HTTPRouter) {
        let service = service
        router.add(.PUT, "/bwmi/{appKey}/devices", .async { await service.register($0) })
        router.add(.DELETE, "/bwmi/{appKey}/devices", .async { await service.deregister($0) })
        router.add(.PUT, "/bwmi/{appKey}/acks", .deferred { service.acknowledge($0, responder: $1) })
        router.add(.GET, "/bwmi/{appKey}/devices/{deviceToken}/notifications", .async { await service.pending($0) })
        router.add(.POST, "/bwmi/{appKey}/notifications", .async { await service.send($0) })
    }
}
