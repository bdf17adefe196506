import Testing
import TandemCore
@testable import TandemAPI

/// Forwarding calls between cluster nodes: the request signature.
@Suite("Cluster forwarding: the request signature")
struct ClusterSignatureTests {
    @Test("signed headers verify: node, timestamp and the lower-case hex HMAC-SHA256 of node\\ntimestamp\\nbody")
    func signatureVerifies() throws {
        let signature = ClusterSignature(secret: ClusterForwardingFixtures.secret)
        let body = Array(#"{"kind":"manualFallback","key":42}"#.utf8)
        let headers = try signature.headers(node: ClusterForwardingFixtures.nodeA(), at: ClusterForwardingFixtures.clock, body: body)
        #expect(headers.map(\.0) == ["X-Tandem-Node", "X-Tandem-Timestamp", "X-Tandem-Signature"])
        // Python: hmac.new(b"cluster-secret", b'node-a\n1700000000000\n{"kind":"manualFallback","key":42}', sha256).hexdigest()
        #expect(headers.map(\.1) == ["node-a", "1700000000000", "61b6789614756c9e19c3f8a2c5594a13f79af2f2cd2a10d69bc51884deb18ee6"])
        let mac = headers[2].1
        #expect(signature.verify(node: "node-a", timestamp: "1700000000000", signature: mac, body: body, now: ClusterForwardingFixtures.clock))
        // ±30 s is inside the window.
        #expect(signature.verify(node: "node-a", timestamp: "1700000000000", signature: mac, body: body, now: Timestamp(milliseconds: 1_700_000_030_000)))
        #expect(signature.verify(node: "node-a", timestamp: "1700000000000", signature: mac, body: body, now: Timestamp(milliseconds: 1_699_999_970_000)))
    }

    @Test("a tampered body, another node, another secret, a timestamp 31 s off or altered, a malformed signature fail")
    func signatureFails() throws {
        let signature = ClusterSignature(secret: ClusterForwardingFixtures.secret)
        let body = Array(#"{"kind":"manualFallback","key":42}"#.utf8)
        let mac = try signature.headers(node: ClusterForwardingFixtures.nodeA(), at: ClusterForwardingFixtures.clock, body: body)[2].1
        func verify(node: String = "node-a", timestamp: String = "1700000000000", mac: String = mac, body: [UInt8] = body,
                    now: Int64 = 1_700_000_000_000, with checker: ClusterSignature = signature) -> Bool {
            checker.verify(node: node, timestamp: timestamp, signature: mac, body: body, now: Timestamp(milliseconds: now))
        }
        #expect(verify())
        #expect(!verify(body: Array(#"{"kind":"manualFallback","key":43}"#.utf8)))
        #expect(!verify(body: []))
        #expect(!verify(node: "node-b"))
        #expect(!verify(with: ClusterSignature(secret: Array("another-secret".utf8))))
        #expect(!verify(now: 1_700_000_031_000))  // the request is 31 s old
        #expect(!verify(now: 1_699_999_969_000))  // the request is 31 s ahead
        #expect(!verify(timestamp: "1700000000001"))
        #expect(!verify(timestamp: "01700000000000"))  // the same instant written otherwise is not what was signed
        #expect(!verify(timestamp: "+1700000000000"))
        #expect(!verify(timestamp: ""))
        #expect(!verify(mac: mac.uppercased()))
        #expect(!verify(mac: String(mac.dropLast())))
        #expect(!verify(mac: ""))
        #expect(!verify(node: "node-a\n1700000000000"))  // not a node id: no line feed can shift the signed text
        #expect(!verify(node: ""))
    }
}
