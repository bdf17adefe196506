import Synchronization
import Testing
import TandemCore
import TandemEngine
import TandemHTTP
import TandemProviders
@testable import TandemAPI

/// Forwarding calls between cluster nodes: the endpoint called through its handler, and a forwarder talking to the
/// endpoint in a real server over loopback with libcurl.
@Suite("Cluster forwarding: the endpoint, and a forwarder calling it over loopback")
struct ClusterForwardingEndpointTests {
    // MARK: - Endpoint, through its handler

    @Test("the endpoint answers 401 for a missing, repeated or wrong header, and never calls apply")
    func endpointRefusesUnsigned() async throws {
        let fake = FakeOwner()
        let endpoint = ClusterForwardEndpoint(signature: ClusterSignature(secret: ClusterForwardingFixtures.secret),
                                              now: { ClusterForwardingFixtures.clock }, apply: fake.apply)
        let body = try ForwardedCallCodec.encode(.manualFallback(DeliveryKey(42)))
        let signed = try ClusterSignature(secret: ClusterForwardingFixtures.secret)
            .headers(node: ClusterForwardingFixtures.nodeA(), at: ClusterForwardingFixtures.clock, body: body)
        var cases: [[(String, String)]] = signed.indices.map { missing in signed.enumerated().filter { $0.offset != missing }.map(\.element) }
        cases.append(signed + [signed[2]])  // the signature twice
        cases.append([signed[0], signed[1], (signed[2].0, String(repeating: "0", count: 64))])
        cases.append([])
        for headers in cases {
            let response = await endpoint.respond(to: Request(method: .POST, target: ClusterForwardEndpoint.path,
                                                              headers: HTTPHeaders(headers), body: body))
            #expect(response.status == .unauthorized)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"unauthenticated"}"#)
        }
        // The same request, stale.
        let late = ClusterForwardEndpoint(signature: ClusterSignature(secret: ClusterForwardingFixtures.secret),
                                          now: { ClusterForwardingFixtures.clock + .seconds(31) }, apply: fake.apply)
        #expect(await late.respond(to: Request(method: .POST, target: ClusterForwardEndpoint.path, headers: HTTPHeaders(signed), body: body))
                    .status == .unauthorized)
        #expect(fake.received.isEmpty)
        // Correctly signed, it goes through.
        let response = await endpoint.respond(to: Request(method: .POST, target: ClusterForwardEndpoint.path, headers: HTTPHeaders(signed), body: body))
        #expect(response.status == .ok)
        #expect(fake.received.count == 1)
    }

    @Test("the endpoint answers 400 with the codec's reason, 409 notOwner, 503 unavailable with Retry-After (logged)")
    func endpointErrors() async throws {
        let fake = FakeOwner()
        let lines = LogLines()
        let endpoint = ClusterForwardEndpoint(signature: ClusterSignature(secret: ClusterForwardingFixtures.secret),
                                              now: { ClusterForwardingFixtures.clock }, apply: fake.apply,
                                              logger: Logger(minimumLevel: .debug, now: { 0 }, sink: lines.append))
        let nodeA = try ClusterForwardingFixtures.nodeA()
        func post(_ body: [UInt8]) async -> Response {
            let headers = ClusterSignature(secret: ClusterForwardingFixtures.secret).headers(node: nodeA, at: ClusterForwardingFixtures.clock, body: body)
            return await endpoint.respond(to: Request(method: .POST, target: ClusterForwardEndpoint.path, headers: HTTPHeaders(headers), body: body))
        }
        let bad = await post(Array(#"{"kind":"manualFallback","key":0}"#.utf8))
        #expect(bad.status == .badRequest)
        #expect(String(decoding: bad.body, as: UTF8.self) == #"{"error":"$.key: a delivery key is positive, not 0"}"#)
        #expect(fake.received.isEmpty)

        fake.failure.withLock { $0 = NotPartitionOwner(partition: 17) }
        let conflict = await post(try ForwardedCallCodec.encode(.manualFallback(DeliveryKey(17))))
        #expect(conflict.status == .conflict)
        #expect(String(decoding: conflict.body, as: UTF8.self) == #"{"error":"notOwner","partition":17}"#)

        fake.failure.withLock { $0 = ForwardingTestError.storeDown }
        let unavailable = await post(try ForwardedCallCodec.encode(.manualFallback(DeliveryKey(17))))
        #expect(unavailable.status == .serviceUnavailable)
        #expect(unavailable.headers["Retry-After"] == "2")
        #expect(String(decoding: unavailable.body, as: UTF8.self) == #"{"error":"unavailable"}"#)
        #expect(lines.all.contains("cluster forward failed"))
        #expect(lines.all.contains("storeDown"))
        #expect(fake.received.count == 2)
    }

    // MARK: - End to end on loopback

    /// The endpoint in a real server on 127.0.0.1, and a forwarder whose transport is TandemProviders' HTTPClient.
    final class Loopback: Sendable {
        let fake: FakeOwner
        let server: HTTPServer
        let client: HTTPClient
        let address: String
        let transportCalls = Atomic(0)
        let node: NodeID

        init() throws {
            let fake = FakeOwner()
            self.fake = fake
            var router = HTTPRouter()
            ClusterForwardEndpoint(signature: ClusterSignature(secret: ClusterForwardingFixtures.secret), now: { ClusterForwardingFixtures.clock },
                                   apply: fake.apply).register(in: &router)
            server = HTTPServer(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), router: router, onRequestCompleted: { _ in })
            address = "127.0.0.1:\(try server.start())"
            client = try HTTPClient()
            node = try ClusterForwardingFixtures.nodeA()
        }

        func forwarder(secret: [UInt8] = ClusterForwardingFixtures.secret, owner: @escaping @Sendable (Int) -> String?) -> HTTPDeliveryForwarder {
            let client = client
            let calls = self
            return HTTPDeliveryForwarder(
                node: node, signature: ClusterSignature(secret: secret), owner: owner,
                transport: { url, headers, body, timeout in
                    calls.transportCalls.add(1, ordering: .relaxed)
                    let response = try await client.send(HTTPClientRequest(method: .post, url: url, headers: headers.map { HTTPClientHeader($0.0, $0.1) },
                                                                           body: body, timeout: timeout, version: .http1_1))
                    return (response.status, response.body)
                },
                now: { ClusterForwardingFixtures.clock },
                // Generous: a bound for failure while the whole package's suites share two cores.
                timeout: .seconds(60))
        }

        func stop() async {
            await client.shutdown()
            await server.shutdown(gracePeriod: .seconds(1))
        }
    }

    @Test("each call kind forwarded over loopback: the owner's apply gets the call, the caller its answer")
    func endToEnd() async throws {
        let loopback = try Loopback()
        let address = loopback.address
        let asked = Mutex<[Int]>([])
        let forwarder = loopback.forwarder { partition in
            asked.withLock { $0.append(partition) }
            return address
        }
        let events = ForwardedCall.events([(DeliveryKey(259), .smsPartReported(reference: "ref-1", .delivered)),
                                           (DeliveryKey(515), .cancelledBySender), (DeliveryKey(771), .readReported(ClusterForwardingFixtures.device))])
        let outcomes = try await forwarder.forward(events, partition: 3)
        #expect(outcomes == .outcomes([.applied, .loggedAfterFinal, .applied]))

        let receipt = try await forwarder.forward(ClusterForwardingFixtures.receiptWithAcknowledgement, partition: 2)
        #expect(receipt == .receipt(.recorded, acknowledgement: .acknowledged, liveCount: 4))

        let fallback = try await forwarder.forward(.manualFallback(DeliveryKey(42)), partition: 42)
        #expect(fallback == .manualFallback(.smsAlreadyRequested))

        let received = loopback.fake.received
        #expect(received.count == 3)
        if received.count == 3 {
            #expect(ClusterForwardingFixtures.same(received[0], events))
            #expect(ClusterForwardingFixtures.same(received[1], ClusterForwardingFixtures.receiptWithAcknowledgement))
            #expect(ClusterForwardingFixtures.same(received[2], .manualFallback(DeliveryKey(42))))
        }
        #expect(asked.withLock { $0 } == [3, 2, 42])
        await loopback.stop()
    }

    @Test("the owner's NotPartitionOwner reaches the caller as NotPartitionOwner; any other failure as ForwardingFailed")
    func ownerFailures() async throws {
        let loopback = try Loopback()
        let address = loopback.address
        let forwarder = loopback.forwarder { _ in address }
        loopback.fake.failure.withLock { $0 = NotPartitionOwner(partition: 9) }
        await #expect(throws: NotPartitionOwner(partition: 9)) {
            try await forwarder.forward(.manualFallback(DeliveryKey(9)), partition: 9)
        }
        loopback.fake.failure.withLock { $0 = ForwardingTestError.storeDown }
        let failed = await #expect(throws: ForwardingFailed.self) {
            try await forwarder.forward(.manualFallback(DeliveryKey(9)), partition: 9)
        }
        #expect(failed?.detail.contains("answered 503") == true, "\(failed?.detail ?? "")")
        #expect(failed?.detail.contains(address) == true)
        #expect(loopback.fake.received.count == 2)
        await loopback.stop()
    }

    @Test("a request with a bad signature is answered 401 and never applied")
    func badSignatureOverTheWire() async throws {
        let loopback = try Loopback()
        let address = loopback.address
        // A node configured with another secret.
        let forwarder = loopback.forwarder(secret: Array("not-the-cluster-secret".utf8)) { _ in address }
        let failed = await #expect(throws: ForwardingFailed.self) {
            try await forwarder.forward(.manualFallback(DeliveryKey(42)), partition: 42)
        }
        #expect(failed?.detail.contains("answered 401") == true, "\(failed?.detail ?? "")")
        // Signed, then the body changed on the way.
        let body = try ForwardedCallCodec.encode(.manualFallback(DeliveryKey(42)))
        let headers = try ClusterSignature(secret: ClusterForwardingFixtures.secret)
            .headers(node: ClusterForwardingFixtures.nodeA(), at: ClusterForwardingFixtures.clock, body: body)
        let tampered = try ForwardedCallCodec.encode(.manualFallback(DeliveryKey(43)))
        let response = try await loopback.client.send(HTTPClientRequest(
            method: .post, url: "http://\(address)\(ClusterForwardEndpoint.path)",
            headers: headers.map { HTTPClientHeader($0.0, $0.1) }, body: tampered, timeout: .seconds(60), version: .http1_1))
        #expect(response.status == 401)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"unauthenticated"}"#)
        #expect(loopback.fake.received.isEmpty)
        await loopback.stop()
    }

    @Test("an owner address where nothing listens is ForwardingFailed; no owner is NotPartitionOwner with nothing sent")
    func unreachableAndNoOwner() async throws {
        // A port a server listened on and closed: nothing listens there now.
        let closed = try Loopback()
        let deadAddress = closed.address
        await closed.stop()

        let loopback = try Loopback()
        let unreachable = loopback.forwarder { _ in deadAddress }
        let failed = await #expect(throws: ForwardingFailed.self) {
            try await unreachable.forward(.manualFallback(DeliveryKey(42)), partition: 42)
        }
        #expect(failed?.detail.contains("not reached") == true, "\(failed?.detail ?? "")")
        #expect(loopback.transportCalls.load(ordering: .relaxed) == 1)

        let ownerless = loopback.forwarder { _ in nil }
        await #expect(throws: NotPartitionOwner(partition: 42)) {
            try await ownerless.forward(.manualFallback(DeliveryKey(42)), partition: 42)
        }
        #expect(loopback.transportCalls.load(ordering: .relaxed) == 1)  // nothing sent for it
        #expect(loopback.fake.received.isEmpty)
        await loopback.stop()
    }

    @Test("a forwarder refuses an answer that does not fit its call, and a call the codec cannot write")
    func forwarderChecksAnswers() async throws {
        let nodeA = try ClusterForwardingFixtures.nodeA()
        let answers: [(status: Int, body: String)] = [
            (200, #"{"kind":"outcomes","outcomes":["applied"]}"#),   // one outcome to two events
            (200, #"{"kind":"manualFallback","availability":"available"}"#),
            (200, "not json"),
            (500, "boom\nsecond line"),
        ]
        for answer in answers {
            let forwarder = HTTPDeliveryForwarder(node: nodeA, signature: ClusterSignature(secret: ClusterForwardingFixtures.secret), owner: { _ in "10.0.0.2:8080" },
                                                  transport: { url, headers, _, _ in
                                                      #expect(url == "http://10.0.0.2:8080/internal/cluster/forward")
                                                      #expect(headers.first { $0.0 == "Content-Type" }?.1 == "application/json")
                                                      return (answer.status, Array(answer.body.utf8))
                                                  }, now: { ClusterForwardingFixtures.clock })
            let failed = await #expect(throws: ForwardingFailed.self) {
                try await forwarder.forward(.events([(DeliveryKey(3), .expired), (DeliveryKey(259), .expired)]), partition: 3)
            }
            #expect(failed?.detail.contains("10.0.0.2:8080") == true)
        }
        let forwarder = HTTPDeliveryForwarder(node: nodeA, signature: ClusterSignature(secret: ClusterForwardingFixtures.secret), owner: { _ in "10.0.0.2:8080" },
                                              transport: { _, _, _, _ in
                                                  Issue.record("nothing should be sent")
                                                  return (200, [])
                                              }, now: { ClusterForwardingFixtures.clock })
        await #expect(throws: ForwardingFailed.self) {
            try await forwarder.forward(.events([(DeliveryKey(3), .timerFired(.noRead))]), partition: 3)
        }
    }

    // MARK: - Helpers

    /// A partition's owner: records what it is asked and answers by kind, or throws what it is told to.
    final class FakeOwner: Sendable {
        let calls = Mutex<[ForwardedCall]>([])
        let failure = Mutex<(any Error)?>(nil)

        var received: [ForwardedCall] { calls.withLock { $0 } }

        var apply: @Sendable (ForwardedCall) async throws -> ForwardedAnswer {
            { call in
                self.calls.withLock { $0.append(call) }
                if let failure = self.failure.withLock({ $0 }) { throw failure }
                switch call {
                case .events(let events): return .outcomes(events.indices.map { $0 % 2 == 0 ? .applied : .loggedAfterFinal })
                case .receipt: return .receipt(.recorded, acknowledgement: .acknowledged, liveCount: 4)
                case .manualFallback: return .manualFallback(.smsAlreadyRequested)
                }
            }
        }
    }

    enum ForwardingTestError: Error { case storeDown }
}
