import Synchronization

/// Everything libmicrohttpd's callbacks need, shared by all worker threads.
///
/// Immutable apart from atomics and the internally locked suspension registry,
/// so worker threads never contend on a lock on the sync path.
final class ServerCore: Sendable {
    let router: HTTPRouter
    let maxBodyBytes: Int
    let maxURLBytes: Int
    let maxHeaderBytes: Int
    /// Bytes past `maxBodyBytes` read and dropped while waiting for an oversized chunked body to end.
    let discardAllowance: Int
    let onRequestCompleted: @Sendable (AccessRecord) -> Void
    /// Requests between the URI-log callback and the completion callback.
    let inFlight = Atomic<Int>(0)
    /// Set when shutdown starts: every response from then on carries `Connection: close`.
    let draining = Atomic<Bool>(false)
    let suspended = SuspendedConnections()
    let emptyResponses = SharedEmptyResponses()
    let connectionsPerAddress: ConnectionsPerAddress
    let bodyBudget: BodyBudget

    init(configuration: HTTPServer.Configuration, router: HTTPRouter, onRequestCompleted: @escaping @Sendable (AccessRecord) -> Void) {
        self.router = router
        self.maxBodyBytes = configuration.maxBodyBytes
        self.maxURLBytes = configuration.maxURLBytes
        self.maxHeaderBytes = configuration.maxHeaderBytes
        self.discardAllowance = max(configuration.maxBodyBytes, 64 * 1024)
        self.onRequestCompleted = onRequestCompleted
        self.connectionsPerAddress = ConnectionsPerAddress(limit: configuration.maxConnectionsPerAddress)
        self.bodyBudget = BodyBudget(capacity: configuration.maxBufferedBodyBytes)
    }

    /// Called once per request, when its request line has been parsed.
    func beginRequest(target: String) -> RequestContext {
        inFlight.add(1, ordering: .relaxed)
        return RequestContext(target: target, startedAt: .now)
    }

    /// Called once per request by the completion callback: reports the access
    /// record, then stops counting the request as in flight.
    func finishRequest(_ context: RequestContext, deliveredResponse: Bool) {
        bodyBudget.release(context.reservedBodyBytes)
        context.reservedBodyBytes = 0
        let elapsed = context.startedAt.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        onRequestCompleted(AccessRecord(
            method: context.methodText,
            route: context.route ?? "unmatched",
            target: context.target,
            status: deliveredResponse ? context.status : 0,
            durationSeconds: seconds,
            requestBytes: context.bodyBytesReceived,
            responseBytes: context.responseBytes,
            remoteAddress: context.remoteAddress
        ))
        inFlight.subtract(1, ordering: .releasing)
    }
}
