import TandemCore
import TandemEngine
@testable import TandemAPI

/// What the cluster forwarding suites share (``ClusterForwardingCodecTests``, ``ClusterSignatureTests``,
/// ``ClusterForwardingEndpointTests``): the ids, time and secret of their calls, a receipt to forward, and a
/// comparison of calls.
enum ClusterForwardingFixtures {
    static let device = DeviceID(GUID("6f1c2d3e-4b5a-4978-8a6b-5c4d3e2f1a0b")!)
    static let app = AppKey(GUID("11111111-2222-4333-8444-555555555555")!)
    static let msisdn = MSISDN("+31612345678")!
    static let clock = Timestamp(milliseconds: 1_700_000_000_000)
    /// The node the calls come from (a function that throws: a ``NodeID`` is checked when made).
    static func nodeA() throws -> NodeID { try NodeID("node-a") }
    static let secret = Array("cluster-secret".utf8)

    static let receiptWithAcknowledgement = ForwardedCall.receipt(
        key: DeliveryKey(258), events: [.deliveryAcknowledged(device), .readReported(device)],
        sender: Scheduler.ReceiptSender(app: app, msisdn: msisdn),
        acknowledgement: ForwardedAcknowledgement(delivery: DeliveryKey(258), device: device, at: Timestamp(milliseconds: 1_700_000_000_123)))

    /// Whether two calls are the same (ForwardedCall is not Equatable: its events are tuples).
    static func same(_ a: ForwardedCall, _ b: ForwardedCall) -> Bool {
        switch (a, b) {
        case (.events(let x), .events(let y)):
            x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.receipt(let k1, let e1, let s1, let a1), .receipt(let k2, let e2, let s2, let a2)):
            k1 == k2 && e1 == e2 && s1 == s2 && a1 == a2
        case (.manualFallback(let x), .manualFallback(let y)):
            x == y
        default:
            false
        }
    }
}
