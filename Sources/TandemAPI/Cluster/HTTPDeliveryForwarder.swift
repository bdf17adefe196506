import TandemCore
import TandemEngine

/// Forwards a call to the node holding a partition over internal HTTP: `POST http://<owner>/internal/cluster/forward`
/// with the call in ``ForwardedCallCodec``'s form, signed (``ClusterSignature``), answered by that node's
/// ``ClusterForwardEndpoint`` after its commit.
///
/// - no owner for the partition now (`owner` gives nil) → ``NotPartitionOwner``, nothing sent;
/// - 200 with an answer of the call's kind (as many outcomes as events) → that answer;
/// - 409 (the node asked no longer holds the partition) → ``NotPartitionOwner``;
/// - any other status, an answer that cannot be read or does not fit the call, a call the codec refuses to write,
///   or a transport error (refused, timed out) → ``ForwardingFailed`` naming the owner and what went wrong.
///
/// Not done here: retrying (the caller's client retries what it is told to), or deciding that the owner is this
/// node (`owner` should not name this node's own address: the caller applies such a call itself).
public struct HTTPDeliveryForwarder: DeliveryForwarder {
    public typealias Transport = @Sendable (_ url: String, _ headers: [(String, String)], _ body: [UInt8], _ timeout: Duration)
        async throws -> (status: Int, body: [UInt8])

    private let node: NodeID
    private let signature: ClusterSignature
    private let owner: @Sendable (Int) -> String?
    private let transport: Transport
    private let now: @Sendable () -> Timestamp
    private let timeout: Duration

    /// - Parameters:
    ///   - node: this node, named in the signed headers.
    ///   - owner: the `host:port` of the node holding a partition now, or nil when none does.
    ///   - transport: sends one POST and returns the status and body (in `tandem serve`, TandemProviders' `HTTPClient`).
    ///   - now: the wall clock the request is stamped with.
    ///   - timeout: the whole exchange's limit, handed to `transport`.
    public init(node: NodeID, signature: ClusterSignature, owner: @escaping @Sendable (Int) -> String?,
                transport: @escaping Transport, now: @escaping @Sendable () -> Timestamp, timeout: Duration = .seconds(5)) {
        self.node = node
        self.signature = signature
        self.owner = owner
        self.transport = transport
        self.now = now
        self.timeout = timeout
    }

    public func forward(_ call: ForwardedCall, partition: Int) async throws -> ForwardedAnswer {
        guard let address = owner(partition) else { throw NotPartitionOwner(partition: partition) }
        let body: [UInt8]
        do {
            body = try ForwardedCallCodec.encode(call)
        } catch {
            throw ForwardingFailed("the call for partition \(partition) cannot be sent: \(error)")
        }
        var headers = [("Content-Type", "application/json")]
        headers += signature.headers(node: node, at: now(), body: body)
        let url = "http://\(address)\(ClusterForwardEndpoint.path)"
        let response: (status: Int, body: [UInt8])
        do {
            response = try await transport(url, headers, body, timeout)
        } catch {
            throw ForwardingFailed("node at \(address) (partition \(partition)) not reached: \(error)")
        }
        switch response.status {
        case 200:
            let answer: ForwardedAnswer
            do {
                answer = try ForwardedCallCodec.decodeAnswer(response.body)
            } catch {
                throw ForwardingFailed("node at \(address) (partition \(partition)) answered 200 with an unreadable answer: \(error)")
            }
            if let mismatch = Self.mismatch(answer, call) {
                throw ForwardingFailed("node at \(address) (partition \(partition)) answered \(mismatch)")
            }
            return answer
        case 409:
            throw NotPartitionOwner(partition: partition)
        default:
            throw ForwardingFailed("node at \(address) (partition \(partition)) answered \(response.status): \(Self.excerpt(response.body))")
        }
    }

    /// Why `answer` cannot be the answer to `call`, or nil when it fits.
    private static func mismatch(_ answer: ForwardedAnswer, _ call: ForwardedCall) -> String? {
        switch (call, answer) {
        case (.events(let events), .outcomes(let outcomes)):
            outcomes.count == events.count ? nil : "\(outcomes.count) outcomes to \(events.count) events"
        case (.receipt, .receipt), (.manualFallback, .manualFallback):
            nil
        default:
            "an answer of another kind than the call"
        }
    }

    /// The start of an error body, for the failure's detail (a line of text, whatever the body holds).
    private static func excerpt(_ body: [UInt8]) -> String {
        guard !body.isEmpty else { return "(no body)" }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        let line = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return body.count > 200 ? line + "…" : line
    }
}
