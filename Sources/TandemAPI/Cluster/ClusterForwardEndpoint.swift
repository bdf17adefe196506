import TandemCore
import TandemEngine
import TandemHTTP

/// `POST /internal/cluster/forward`: where a cluster node takes a call another node forwards to it, for a delivery
/// in a partition it holds (docs/cluster.md, "Receipts, reports and requests for a delivery another node owns";
/// ``HTTPDeliveryForwarder`` is the sending side).
///
/// The request must be signed (``ClusterSignature``): a missing, repeated or wrong `X-Tandem-Node`,
/// `X-Tandem-Timestamp` or `X-Tandem-Signature`, or a timestamp more than 30 s off, is answered 401
/// `{"error":"unauthenticated"}` and nothing else is looked at. A body ``ForwardedCallCodec`` refuses gets 400
/// `{"error":"<the codec's reason>"}`. Otherwise the call is handed to `apply`, and its answer — given once the
/// owner has committed — is sent 200 in the codec's form. `apply` throwing ``NotPartitionOwner`` gets 409
/// `{"error":"notOwner","partition":N}` (the sender's client is told to try again); anything else it throws gets
/// 503 `{"error":"unavailable"}` with `Retry-After: 2`, and is logged.
///
/// Not guaranteed: that a call answered with an error was not applied (a 503 after the commit is possible when
/// `apply` fails late); the server's body limit applies as to any route.
public struct ClusterForwardEndpoint: Sendable {
    public static let path = "/internal/cluster/forward"

    private let signature: ClusterSignature
    private let apply: @Sendable (ForwardedCall) async throws -> ForwardedAnswer
    private let now: @Sendable () -> Timestamp
    private let logger: Logger

    /// - Parameters:
    ///   - now: the wall clock the request's timestamp is checked against.
    ///   - apply: applies a call to this node's deliveries and answers after the commit.
    public init(signature: ClusterSignature, now: @escaping @Sendable () -> Timestamp,
                apply: @escaping @Sendable (ForwardedCall) async throws -> ForwardedAnswer, logger: Logger = .discarding) {
        self.signature = signature
        self.now = now
        self.apply = apply
        self.logger = logger
    }

    public func register(in router: inout HTTPRouter) {
        let endpoint = self
        router.add(.POST, Self.path, .async { await endpoint.respond(to: $0) })
    }

    func respond(to request: Request) async -> Response {
        guard let node = single(ClusterSignature.nodeHeader, in: request.headers),
              let timestamp = single(ClusterSignature.timestampHeader, in: request.headers),
              let mac = single(ClusterSignature.signatureHeader, in: request.headers),
              signature.verify(node: node, timestamp: timestamp, signature: mac, body: request.body, now: now()) else {
            // The node header is logged only when it is a valid node id (safe in a log line); it is unproven.
            logger.warning("cluster forward refused: unauthenticated",
                           ["node": .string(request.headers[ClusterSignature.nodeHeader].flatMap { try? NodeID($0) }?.text ?? "-"),
                            "remote": .string(request.remoteAddress ?? "-")])
            return .json(.unauthorized, #"{"error":"unauthenticated"}"#)
        }
        let call: ForwardedCall
        do {
            call = try ForwardedCallCodec.decodeCall(request.body)
        } catch {
            logger.warning("cluster forward refused: bad body", ["node": .string(node), "reason": .string("\(error)")])
            var body = #"{"error":"#
            JSONText.appendString("\(error)", to: &body)
            body += "}"
            return .json(.badRequest, body)
        }
        do {
            let answer = try await apply(call)
            return .json(.ok, ForwardedCallCodec.encode(answer))
        } catch let error as NotPartitionOwner {
            logger.info("cluster forward: not the owner", ["node": .string(node), "partition": .int(Int64(error.partition))])
            return .json(.conflict, #"{"error":"notOwner","partition":\#(error.partition)}"#)
        } catch {
            logger.error("cluster forward failed", ["node": .string(node), "error": .string("\(error)")])
            var response = Response.json(.serviceUnavailable, #"{"error":"unavailable"}"#)
            response.headers.add(name: "Retry-After", value: "2")
            return response
        }
    }

    /// The header's value when it appears exactly once.
    private func single(_ name: String, in headers: HTTPHeaders) -> String? {
        headers.count(of: name) == 1 ? headers[name] : nil
    }
}
