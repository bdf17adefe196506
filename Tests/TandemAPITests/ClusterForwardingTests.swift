import Synchronization
import Testing
import TandemCore
import TandemEngine
import TandemHTTP
import TandemProviders
@testable import TandemAPI

/// Forwarding calls between cluster nodes: the wire codec (pure), the request signature, the endpoint called
/// through its handler, and a forwarder talking to the endpoint in a real server over loopback with libcurl.
@Suite("Cluster forwarding")
struct ClusterForwardingTests {
    static let device = DeviceID(GUID("6f1c2d3e-4b5a-4978-8a6b-5c4d3e2f1a0b")!)
    static let otherDevice = DeviceID(GUID("0a1b2c3d-4e5f-4a6b-9c7d-8e9fa0b1c2d3")!)
    static let app = AppKey(GUID("11111111-2222-4333-8444-555555555555")!)
    static let msisdn = MSISDN("+31612345678")!
    static let clock = Timestamp(milliseconds: 1_700_000_000_000)
    static let nodeA = try! NodeID("node-a")
    static let secret = Array("cluster-secret".utf8)

    /// Every event a node forwards, one of each kind (and each SMS outcome and push rejection at least once).
    static let forwardableEvents: [DeliveryEvent] = [
        .pushAccepted(device),
        .pushRejected(device, .tokenDead),
        .pushRejected(otherDevice, .transient),
        .pushRejected(device, .other),
        .deliveryAcknowledged(device),
        .readReported(otherDevice),
        .manualFallbackRequested,
        .supersededBySMS,
        .cancelledBySender,
        .smsSubmitted(SMSSubmission(provider: "smpp", references: ["a", "b"])),
        .smsSubmitted(SMSSubmission(provider: "kannel-eu", references: ["0123\"quoted\"\\ü"])),
        .smsReportReceived(.failed),
        .smsPartReported(reference: "abc", .delivered),
        .smsPartReported(reference: "def", .expired),
        .expired,
    ]

    static let receiptWithAcknowledgement = ForwardedCall.receipt(
        key: DeliveryKey(258), events: [.deliveryAcknowledged(device), .readReported(device)],
        sender: Scheduler.ReceiptSender(app: app, msisdn: msisdn),
        acknowledgement: ForwardedAcknowledgement(delivery: DeliveryKey(258), device: device, at: Timestamp(milliseconds: 1_700_000_000_123)))

    // MARK: - Codec: calls

    @Test("a call of events of every forwardable kind round-trips, in order with its keys")
    func everyEventKindRoundTrips() throws {
        let events = Self.forwardableEvents.enumerated().map { (DeliveryKey(Int64($0.offset) * 256 + 3), $0.element) }
        let call = ForwardedCall.events(events)
        let decoded = try ForwardedCallCodec.decodeCall(ForwardedCallCodec.encode(call))
        #expect(Self.same(decoded, call))
        guard case .events(let back) = decoded else { Issue.record("not an events call"); return }
        #expect(back.map(\.0) == events.map(\.0))
        #expect(back.map(\.1) == Self.forwardableEvents)
    }

    @Test("receipts round-trip: with and without an acknowledgement, from a number or a device, with no events")
    func receiptsRoundTrip() throws {
        let calls: [ForwardedCall] = [
            Self.receiptWithAcknowledgement,
            .receipt(key: DeliveryKey(Int64.max), events: [.readReported(Self.otherDevice)],
                     sender: Scheduler.ReceiptSender(app: Self.app, recipient: .device(Self.otherDevice)), acknowledgement: nil),
            .receipt(key: DeliveryKey(1), events: [], sender: Scheduler.ReceiptSender(app: Self.app, msisdn: Self.msisdn),
                     acknowledgement: ForwardedAcknowledgement(delivery: DeliveryKey(1), device: Self.device, at: Timestamp(milliseconds: 0))),
            .manualFallback(DeliveryKey(42)),
            .events([]),
        ]
        for call in calls {
            let decoded = try ForwardedCallCodec.decodeCall(ForwardedCallCodec.encode(call))
            #expect(Self.same(decoded, call), "\(call)")
        }
    }

    @Test("the wire shapes: events by name with their fields, keys as numbers, the sender's recipient as stored text")
    func wireShapes() throws {
        let events = ForwardedCall.events([
            (DeliveryKey(7), .readReported(Self.device)),
            (DeliveryKey(7), .smsPartReported(reference: "abc", .delivered)),
            (DeliveryKey(263), .smsSubmitted(SMSSubmission(provider: "smpp", references: ["a", "b"]))),
            (DeliveryKey(263), .pushRejected(Self.device, .tokenDead)),
            (DeliveryKey(263), .cancelledBySender),
        ])
        let d = Self.device.guid.text
        #expect(String(decoding: try ForwardedCallCodec.encode(events), as: UTF8.self) == """
            {"kind":"events","events":[{"key":7,"event":{"kind":"readReported","device":"\(d)"}},\
            {"key":7,"event":{"kind":"smsPartReported","reference":"abc","outcome":"delivered"}},\
            {"key":263,"event":{"kind":"smsSubmitted","provider":"smpp","references":["a","b"]}},\
            {"key":263,"event":{"kind":"pushRejected","device":"\(d)","rejection":"tokenDead"}},\
            {"key":263,"event":{"kind":"cancelledBySender"}}]}
            """)
        #expect(String(decoding: try ForwardedCallCodec.encode(Self.receiptWithAcknowledgement), as: UTF8.self) == """
            {"kind":"receipt","key":258,"events":[{"kind":"deliveryAcknowledged","device":"\(d)"},{"kind":"readReported","device":"\(d)"}],\
            "sender":{"app":"\(Self.app.guid.text)","recipient":"+31612345678"},\
            "acknowledgement":{"delivery":258,"device":"\(d)","at":1700000000123}}
            """)
        #expect(String(decoding: try ForwardedCallCodec.encode(.manualFallback(DeliveryKey(42))), as: UTF8.self)
                == #"{"kind":"manualFallback","key":42}"#)
        // Upper-case GUIDs are read (and normalised); whitespace between tokens is JSON's own.
        let spaced = #"{ "kind" : "manualFallback", "key" : 9 }"#
        #expect(Self.same(try ForwardedCallCodec.decodeCall(Array(spaced.utf8)), .manualFallback(DeliveryKey(9))))
        let upper = #"{"kind":"events","events":[{"key":5,"event":{"kind":"pushAccepted","device":"\#(d.uppercased())"}}]}"#
        #expect(Self.same(try ForwardedCallCodec.decodeCall(Array(upper.utf8)), .events([(DeliveryKey(5), .pushAccepted(Self.device))])))
    }

    @Test("routed and timerFired events, keys ≤ 0 and negative times refuse to encode")
    func refusedEncodings() {
        let refused: [(ForwardedCall, String)] = [
            (.events([(DeliveryKey(1), .readReported(Self.device)), (DeliveryKey(1), .timerFired(.noRead))]), "timerFired"),
            (.events([(DeliveryKey(1), .routed(.reject(.unknownApp)))]), "routed"),
            (.receipt(key: DeliveryKey(1), events: [.routed(.reject(.noPushableDevice))],
                      sender: Scheduler.ReceiptSender(app: Self.app, msisdn: Self.msisdn), acknowledgement: nil), "routed"),
            (.receipt(key: DeliveryKey(1), events: [.timerFired(.lifetime)],
                      sender: Scheduler.ReceiptSender(app: Self.app, msisdn: Self.msisdn), acknowledgement: nil), "timerFired"),
            (.manualFallback(DeliveryKey(0)), "positive"),
            (.events([(DeliveryKey(-5), .expired)]), "positive"),
            (.receipt(key: DeliveryKey(1), events: [], sender: Scheduler.ReceiptSender(app: Self.app, msisdn: Self.msisdn),
                      acknowledgement: ForwardedAcknowledgement(delivery: DeliveryKey(1), device: Self.device, at: Timestamp(milliseconds: -1))),
             "before 1970"),
        ]
        for (call, expected) in refused {
            #expect(Self.problem { try ForwardedCallCodec.encode(call) }?.contains(expected) == true, "\(call)")
        }
    }

    /// A valid receipt body with one member replaced, for the malformed cases.
    static let deviceText = device.guid.text
    static let appText = app.guid.text

    @Test("malformed call bodies are refused with an error naming the problem", arguments: [
        ("", "not JSON"),
        ("{\"kind\":\"events\",\"events\":[", "not JSON"),
        ("[]", "$: an array, not an object"),
        ("{\"events\":[]}", "\"kind\" is missing"),
        ("{\"kind\":\"teleport\",\"key\":1}", "unknown call kind \"teleport\""),
        ("{\"kind\":7,\"key\":1}", "$.kind: a number, not a string"),
        ("{\"kind\":\"manualFallback\"}", "\"key\" is missing"),
        ("{\"kind\":\"manualFallback\",\"key\":\"42\"}", "$.key: a string, not a number"),
        ("{\"kind\":\"manualFallback\",\"key\":0}", "a delivery key is positive, not 0"),
        ("{\"kind\":\"manualFallback\",\"key\":-3}", "a delivery key is positive, not -3"),
        ("{\"kind\":\"manualFallback\",\"key\":4.5}", "not a whole number"),
        ("{\"kind\":\"manualFallback\",\"key\":1e3}", "not a whole number"),
        ("{\"kind\":\"manualFallback\",\"key\":9223372036854775808}", "not a whole number in the 64-bit range"),
        ("{\"kind\":\"manualFallback\",\"key\":1,\"key\":2}", "\"key\" appears twice"),
        ("{\"kind\":\"manualFallback\",\"key\":1,\"partition\":1}", "unknown member \"partition\""),
        ("{\"kind\":\"events\",\"events\":{}}", "$.events: an object, not an array"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1}]}", "$.events[0]: \"event\" is missing"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"readReported\",\"device\":\"not-a-guid\"}}]}",
         "$.events[0].event.device: not a GUID"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"readReported\"}}]}", "$.events[0].event: \"device\" is missing"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"exploded\"}}]}", "unknown event kind \"exploded\""),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"timerFired\"}}]}", "\"timerFired\" events are never forwarded"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"routed\"}}]}", "\"routed\" events are never forwarded"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"expired\",\"device\":\"\(ClusterForwardingTests.deviceText)\"}}]}",
         "unknown member \"device\""),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"smsSubmitted\",\"provider\":\"smpp\",\"references\":[]}}]}",
         "at least one part"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"smsSubmitted\",\"provider\":\"smpp\",\"references\":[1]}}]}",
         "references[0]: a number, not a string"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"smsReportReceived\",\"outcome\":\"lost\"}}]}",
         "unknown SMS outcome \"lost\""),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"pushRejected\",\"device\":\"\(ClusterForwardingTests.deviceText)\",\"rejection\":\"meh\"}}]}",
         "unknown push rejection \"meh\""),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingTests.appText)\",\"recipient\":\"0612345678\"}}",
         "$.sender.recipient: neither an E.164 number nor device:<guid>"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingTests.appText)\",\"recipient\":\"device:xyz\"}}",
         "$.sender.recipient: neither"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingTests.appText)\",\"recipient\":\"+31 6 1234 5678\"}}",
         "$.sender.recipient: neither"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"{\(ClusterForwardingTests.appText)}\",\"recipient\":\"+31612345678\"}}",
         "$.sender.app: not a GUID"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"recipient\":\"+31612345678\"}}", "$.sender: \"app\" is missing"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingTests.appText)\",\"recipient\":\"+31612345678\"},\"acknowledgement\":null}",
         "$.acknowledgement: null, not an object"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingTests.appText)\",\"recipient\":\"+31612345678\"},"
            + "\"acknowledgement\":{\"delivery\":1,\"device\":\"\(ClusterForwardingTests.deviceText)\",\"at\":-1}}", "$.acknowledgement.at: -1 is less than 0"),
        ("{\"kind\":\"manualFallback\",\"key\":1} x", "not JSON"),
    ])
    func malformedCalls(body: String, expected: String) {
        let problem = Self.problem { try ForwardedCallCodec.decodeCall(Array(body.utf8)) }
        #expect(problem?.contains(expected) == true, "\(problem ?? "accepted")")
    }

    @Test("bytes that are not UTF-8 are refused")
    func invalidUTF8() {
        let body: [UInt8] = Array(#"{"kind":"events","events":[{"key":1,"event":{"kind":"smsPartReported","reference":""#.utf8)
            + [0xC3, 0x28] + Array(#"","outcome":"failed"}}]}"#.utf8)
        #expect(Self.problem { try ForwardedCallCodec.decodeCall(body) }?.hasPrefix("not JSON") == true)
    }

    @Test("10,000 events are one call; 10,001 are refused both ways")
    func eventLimit() throws {
        let limit = ForwardedCallCodec.maximumEvents
        #expect(limit == 10_000)
        let full = ForwardedCall.events(Array(repeating: (DeliveryKey(3), DeliveryEvent.expired), count: limit))
        let encoded = try ForwardedCallCodec.encode(full)
        #expect(try ForwardedCallCodec.decodeCall(encoded).keys.count == limit)
        let over = ForwardedCall.events(Array(repeating: (DeliveryKey(3), DeliveryEvent.expired), count: limit + 1))
        #expect(Self.problem { try ForwardedCallCodec.encode(over) }?.contains("more than the 10000") == true)
        // Written by hand, as another node might: the reader refuses it too.
        let text = #"{"kind":"events","events":["# + Array(repeating: #"{"key":3,"event":{"kind":"expired"}}"#, count: limit + 1)
            .joined(separator: ",") + "]}"
        #expect(Self.problem { try ForwardedCallCodec.decodeCall(Array(text.utf8)) }?.contains("10001 entries") == true)
        let receipt = #"{"kind":"receipt","key":1,"events":["# + Array(repeating: #"{"kind":"expired"}"#, count: limit + 1)
            .joined(separator: ",") + #"],"sender":{"app":"\#(Self.appText)","recipient":"+31612345678"}}"#
        #expect(Self.problem { try ForwardedCallCodec.decodeCall(Array(receipt.utf8)) }?.contains("10001 entries") == true)
    }

    // MARK: - Codec: answers

    static let everyAnswer: [ForwardedAnswer] = {
        var answers: [ForwardedAnswer] = [.outcomes([]), .outcomes([.applied]), .outcomes([.loggedAfterFinal, .applied, .loggedAfterFinal])]
        for outcome in [Scheduler.ReceiptOutcome.recorded, .notTheRecipient, .notInFlight] {
            for acknowledgement in [nil, BWMIAcknowledgement.acknowledged, .alreadyAcknowledged, .unknown] {
                for liveCount in [nil, 0, 3] {
                    answers.append(.receipt(outcome, acknowledgement: acknowledgement, liveCount: liveCount))
                }
            }
        }
        let availabilities: [ManualFallbackAvailability] = [.available, .notAllowedByPolicy, .smsAlreadyRequested, .alreadyFinal, .notPushed]
        return answers + availabilities.map { .manualFallback($0) }
    }()

    @Test("every answer round-trips")
    func everyAnswerRoundTrips() throws {
        #expect(Self.everyAnswer.count == 3 + 36 + 5)
        for answer in Self.everyAnswer {
            #expect(try ForwardedCallCodec.decodeAnswer(ForwardedCallCodec.encode(answer)) == answer)
        }
        #expect(String(decoding: ForwardedCallCodec.encode(.outcomes([.applied, .loggedAfterFinal])), as: UTF8.self)
                == #"{"kind":"outcomes","outcomes":["applied","loggedAfterFinal"]}"#)
        #expect(String(decoding: ForwardedCallCodec.encode(.receipt(.recorded, acknowledgement: .alreadyAcknowledged, liveCount: 2)),
                       as: UTF8.self) == #"{"kind":"receipt","outcome":"recorded","acknowledgement":"alreadyAcknowledged","liveCount":2}"#)
        #expect(String(decoding: ForwardedCallCodec.encode(.receipt(.notInFlight, acknowledgement: nil, liveCount: nil)), as: UTF8.self)
                == #"{"kind":"receipt","outcome":"notInFlight"}"#)
        #expect(String(decoding: ForwardedCallCodec.encode(.manualFallback(.smsAlreadyRequested)), as: UTF8.self)
                == #"{"kind":"manualFallback","availability":"smsAlreadyRequested"}"#)
    }

    @Test("malformed answers are refused with an error naming the problem", arguments: [
        ("{}", "\"kind\" is missing"),
        ("{\"kind\":\"outcomes\",\"outcomes\":[\"applied\",\"maybe\"]}", "$.outcomes[1]: unknown value \"maybe\""),
        ("{\"kind\":\"outcomes\",\"outcomes\":[true]}", "$.outcomes[0]: a boolean, not a string"),
        ("{\"kind\":\"receipt\"}", "\"outcome\" is missing"),
        ("{\"kind\":\"receipt\",\"outcome\":\"recorded\",\"liveCount\":-1}", "$.liveCount: -1 is less than 0"),
        ("{\"kind\":\"receipt\",\"outcome\":\"recorded\",\"liveCount\":\"2\"}", "$.liveCount: a string, not a number"),
        ("{\"kind\":\"receipt\",\"outcome\":\"recorded\",\"acknowledgement\":\"sure\"}", "$.acknowledgement: unknown value \"sure\""),
        ("{\"kind\":\"receipt\",\"outcome\":\"recorded\",\"extra\":1}", "unknown member \"extra\""),
        ("{\"kind\":\"manualFallback\",\"availability\":\"later\"}", "unknown manual fallback availability \"later\""),
        ("{\"kind\":\"shrug\"}", "unknown answer kind \"shrug\""),
        ("{\"error\":\"unavailable\"}", "\"kind\" is missing"),
    ])
    func malformedAnswers(body: String, expected: String) {
        let problem = Self.problem { try ForwardedCallCodec.decodeAnswer(Array(body.utf8)) }
        #expect(problem?.contains(expected) == true, "\(problem ?? "accepted")")
    }

    // MARK: - Signature

    @Test("signed headers verify: node, timestamp and the lower-case hex HMAC-SHA256 of node\\ntimestamp\\nbody")
    func signatureVerifies() throws {
        let signature = ClusterSignature(secret: Self.secret)
        let body = Array(#"{"kind":"manualFallback","key":42}"#.utf8)
        let headers = signature.headers(node: Self.nodeA, at: Self.clock, body: body)
        #expect(headers.map(\.0) == ["X-Tandem-Node", "X-Tandem-Timestamp", "X-Tandem-Signature"])
        // Python: hmac.new(b"cluster-secret", b'node-a\n1700000000000\n{"kind":"manualFallback","key":42}', sha256).hexdigest()
        #expect(headers.map(\.1) == ["node-a", "1700000000000", "61b6789614756c9e19c3f8a2c5594a13f79af2f2cd2a10d69bc51884deb18ee6"])
        let mac = headers[2].1
        #expect(signature.verify(node: "node-a", timestamp: "1700000000000", signature: mac, body: body, now: Self.clock))
        // ±30 s is inside the window.
        #expect(signature.verify(node: "node-a", timestamp: "1700000000000", signature: mac, body: body, now: Timestamp(milliseconds: 1_700_000_030_000)))
        #expect(signature.verify(node: "node-a", timestamp: "1700000000000", signature: mac, body: body, now: Timestamp(milliseconds: 1_699_999_970_000)))
    }

    @Test("a tampered body, another node, another secret, a timestamp 31 s off or altered, a malformed signature fail")
    func signatureFails() {
        let signature = ClusterSignature(secret: Self.secret)
        let body = Array(#"{"kind":"manualFallback","key":42}"#.utf8)
        let mac = signature.headers(node: Self.nodeA, at: Self.clock, body: body)[2].1
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

    // MARK: - Endpoint, through its handler

    @Test("the endpoint answers 401 for a missing, repeated or wrong header, and never calls apply")
    func endpointRefusesUnsigned() async throws {
        let fake = FakeOwner()
        let endpoint = ClusterForwardEndpoint(signature: ClusterSignature(secret: Self.secret), now: { Self.clock }, apply: fake.apply)
        let body = try ForwardedCallCodec.encode(.manualFallback(DeliveryKey(42)))
        let signed = ClusterSignature(secret: Self.secret).headers(node: Self.nodeA, at: Self.clock, body: body)
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
        let late = ClusterForwardEndpoint(signature: ClusterSignature(secret: Self.secret), now: { Self.clock + .seconds(31) }, apply: fake.apply)
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
        let endpoint = ClusterForwardEndpoint(signature: ClusterSignature(secret: Self.secret), now: { Self.clock }, apply: fake.apply,
                                              logger: Logger(minimumLevel: .debug, now: { 0 }, sink: lines.append))
        func post(_ body: [UInt8]) async -> Response {
            let headers = ClusterSignature(secret: Self.secret).headers(node: Self.nodeA, at: Self.clock, body: body)
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

        init() throws {
            let fake = FakeOwner()
            self.fake = fake
            var router = HTTPRouter()
            ClusterForwardEndpoint(signature: ClusterSignature(secret: ClusterForwardingTests.secret), now: { ClusterForwardingTests.clock },
                                   apply: fake.apply).register(in: &router)
            server = HTTPServer(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), router: router, onRequestCompleted: { _ in })
            address = "127.0.0.1:\(try server.start())"
            client = try HTTPClient()
        }

        func forwarder(secret: [UInt8] = ClusterForwardingTests.secret, owner: @escaping @Sendable (Int) -> String?) -> HTTPDeliveryForwarder {
            let client = client
            let calls = self
            return HTTPDeliveryForwarder(
                node: ClusterForwardingTests.nodeA, signature: ClusterSignature(secret: secret), owner: owner,
                transport: { url, headers, body, timeout in
                    calls.transportCalls.add(1, ordering: .relaxed)
                    let response = try await client.send(HTTPClientRequest(method: .post, url: url, headers: headers.map { HTTPClientHeader($0.0, $0.1) },
                                                                           body: body, timeout: timeout, version: .http1_1))
                    return (response.status, response.body)
                },
                now: { ClusterForwardingTests.clock },
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
                                           (DeliveryKey(515), .cancelledBySender), (DeliveryKey(771), .readReported(Self.device))])
        let outcomes = try await forwarder.forward(events, partition: 3)
        #expect(outcomes == .outcomes([.applied, .loggedAfterFinal, .applied]))

        let receipt = try await forwarder.forward(Self.receiptWithAcknowledgement, partition: 2)
        #expect(receipt == .receipt(.recorded, acknowledgement: .acknowledged, liveCount: 4))

        let fallback = try await forwarder.forward(.manualFallback(DeliveryKey(42)), partition: 42)
        #expect(fallback == .manualFallback(.smsAlreadyRequested))

        let received = loopback.fake.received
        #expect(received.count == 3)
        if received.count == 3 {
            #expect(Self.same(received[0], events))
            #expect(Self.same(received[1], Self.receiptWithAcknowledgement))
            #expect(Self.same(received[2], .manualFallback(DeliveryKey(42))))
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
        let headers = ClusterSignature(secret: Self.secret).headers(node: Self.nodeA, at: Self.clock, body: body)
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
        let answers: [(status: Int, body: String)] = [
            (200, #"{"kind":"outcomes","outcomes":["applied"]}"#),   // one outcome to two events
            (200, #"{"kind":"manualFallback","availability":"available"}"#),
            (200, "not json"),
            (500, "boom\nsecond line"),
        ]
        for answer in answers {
            let forwarder = HTTPDeliveryForwarder(node: Self.nodeA, signature: ClusterSignature(secret: Self.secret), owner: { _ in "10.0.0.2:8080" },
                                                  transport: { url, headers, _, _ in
                                                      #expect(url == "http://10.0.0.2:8080/internal/cluster/forward")
                                                      #expect(headers.first { $0.0 == "Content-Type" }?.1 == "application/json")
                                                      return (answer.status, Array(answer.body.utf8))
                                                  }, now: { Self.clock })
            let failed = await #expect(throws: ForwardingFailed.self) {
                try await forwarder.forward(.events([(DeliveryKey(3), .expired), (DeliveryKey(259), .expired)]), partition: 3)
            }
            #expect(failed?.detail.contains("10.0.0.2:8080") == true)
        }
        let forwarder = HTTPDeliveryForwarder(node: Self.nodeA, signature: ClusterSignature(secret: Self.secret), owner: { _ in "10.0.0.2:8080" },
                                              transport: { _, _, _, _ in
                                                  Issue.record("nothing should be sent")
                                                  return (200, [])
                                              }, now: { Self.clock })
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

    /// The error's description when `body` throws, else nil.
    static func problem<T>(_ body: () throws -> T) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

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
