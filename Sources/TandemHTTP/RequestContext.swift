/// Per-request state kept in libmicrohttpd's `*req_cls` from the URI-log
/// callback to the completion callback.
///
/// Not `Sendable`: it is only touched on the worker thread serving its
/// connection (libmicrohttpd serialises callbacks per connection). The async
/// path hands its task only the `Request` and an `AsyncResponseSlot`, never this.
final class RequestContext {
    enum Phase {
        /// Request line seen; headers not looked at yet.
        case new
        /// Headers accepted; collecting the body.
        case receiving
        /// Body grew past a limit and libmicrohttpd would not take an answer mid-body: dropping the rest,
        /// then answering with the response kept.
        case discarding(Response)
        /// Connection suspended; an async handler is running.
        case awaitingAsync
        /// A response has been queued.
        case responded
    }

    let target: String
    let startedAt: ContinuousClock.Instant
    var phase = Phase.new
    var methodText = ""
    var method: HTTPMethod?
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    var bodyBytesReceived = 0
    /// Bytes this request holds of the server's `BodyBudget`; given back when it completes.
    var reservedBodyBytes = 0
    /// Whether the body's length was declared (and reserved) up front.
    var declaredLength = false
    var remoteAddress: String?
    var route: String?
    var status = 0
    var responseBytes = 0
    var slot: AsyncResponseSlot?

    init(target: String, startedAt: ContinuousClock.Instant) {
        self.target = target
        self.startedAt = startedAt
    }
}
