import TandemCore
import TandemCrypto

/// How one cluster node proves to another that a request is its own (docs/cluster.md: "an authenticated internal
/// HTTP call (HMAC over the body with the cluster's shared secret)").
///
/// A request carries `X-Tandem-Node: <node id>`, `X-Tandem-Timestamp: <unix ms>` and
/// `X-Tandem-Signature: <lower-case hex HMAC-SHA256(secret, node + "\n" + timestamp + "\n" + body)>`. The node id
/// cannot hold a line feed and the timestamp is digits only, so no two (node, timestamp, body) sign the same text.
///
/// Guaranteed by ``verify(node:timestamp:signature:body:now:)``: the body, node id and timestamp are exactly what a
/// holder of the secret signed, and the timestamp is within ``allowedSkew`` of `now`; the signature is compared in
/// constant time. Not guaranteed: that a request is not replayed within that window (a forwarded call is applied
/// as the owner would apply it locally, so a replayed one is a repeated receipt or report).
public struct ClusterSignature: Sendable {
    public static let nodeHeader = "X-Tandem-Node"
    public static let timestampHeader = "X-Tandem-Timestamp"
    public static let signatureHeader = "X-Tandem-Signature"
    /// How far a request's timestamp may be from the receiver's clock, either way.
    public static let allowedSkew: Duration = .seconds(30)

    private let secret: [UInt8]

    /// - Parameter secret: the cluster's shared secret; not empty (the configuration refuses an empty one).
    public init(secret: [UInt8]) {
        precondition(!secret.isEmpty, "the cluster secret is empty")
        self.secret = secret
    }

    /// The three headers for a request from `node` at `at` with this body.
    public func headers(node: NodeID, at: Timestamp, body: [UInt8]) -> [(String, String)] {
        let timestamp = String(at.milliseconds)
        return [(Self.nodeHeader, node.text), (Self.timestampHeader, timestamp),
                (Self.signatureHeader, signature(node: node.text, timestamp: timestamp, body: body))]
    }

    /// Whether the headers' values sign `body` under this secret, with a timestamp within ``allowedSkew`` of `now`.
    /// False for a node that is not a valid ``NodeID``, a timestamp that is not decimal digits, and a signature that
    /// is not 64 lower-case hex digits.
    public func verify(node: String, timestamp: String, signature: String, body: [UInt8], now: Timestamp) -> Bool {
        guard (try? NodeID(node)) != nil,
              !timestamp.isEmpty, timestamp.utf8.count <= 19,
              timestamp.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let milliseconds = Int64(timestamp) else {
            return false
        }
        let skew = Self.allowedSkew.components.seconds * 1_000
        let (difference, overflow) = now.milliseconds.subtractingReportingOverflow(milliseconds)
        guard !overflow, difference >= -skew, difference <= skew else { return false }
        let expected = self.signature(node: node, timestamp: timestamp, body: body)
        return ConstantTime.equals(Array(signature.utf8), Array(expected.utf8))
    }

    private func signature(node: String, timestamp: String, body: [UInt8]) -> String {
        var message: [UInt8] = []
        message.reserveCapacity(node.utf8.count + timestamp.utf8.count + 2 + body.count)
        message.append(contentsOf: node.utf8)
        message.append(0x0A)
        message.append(contentsOf: timestamp.utf8)
        message.append(0x0A)
        message.append(contentsOf: body)
        return Digest.hex(Digest.hmac(.sha256, key: secret, message: message))
    }
}
