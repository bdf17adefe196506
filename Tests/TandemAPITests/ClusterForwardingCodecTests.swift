import Testing
import TandemCore
import TandemEngine
@testable import TandemAPI

/// Forwarding calls between cluster nodes: the wire codec (pure), for calls and for their answers.
@Suite("Cluster forwarding: the wire codec")
struct ClusterForwardingCodecTests {
    static let otherDevice = DeviceID(GUID("0a1b2c3d-4e5f-4a6b-9c7d-8e9fa0b1c2d3")!)

    /// Every event a node forwards, one of each kind (and each SMS outcome and push rejection at least once).
    static let forwardableEvents: [DeliveryEvent] = [
        .pushAccepted(ClusterForwardingFixtures.device),
        .pushRejected(ClusterForwardingFixtures.device, .tokenDead),
        .pushRejected(otherDevice, .transient),
        .pushRejected(ClusterForwardingFixtures.device, .other),
        .deliveryAcknowledged(ClusterForwardingFixtures.device),
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

    // MARK: - Codec: calls

    @Test("a call of events of every forwardable kind round-trips, in order with its keys")
    func everyEventKindRoundTrips() throws {
        let events = Self.forwardableEvents.enumerated().map { (DeliveryKey(Int64($0.offset) * 256 + 3), $0.element) }
        let call = ForwardedCall.events(events)
        let decoded = try ForwardedCallCodec.decodeCall(ForwardedCallCodec.encode(call))
        #expect(ClusterForwardingFixtures.same(decoded, call))
        guard case .events(let back) = decoded else { Issue.record("not an events call"); return }
        #expect(back.map(\.0) == events.map(\.0))
        #expect(back.map(\.1) == Self.forwardableEvents)
    }

    @Test("receipts round-trip: with and without an acknowledgement, from a number or a device, with no events")
    func receiptsRoundTrip() throws {
        let calls: [ForwardedCall] = [
            ClusterForwardingFixtures.receiptWithAcknowledgement,
            .receipt(key: DeliveryKey(Int64.max), events: [.readReported(Self.otherDevice)],
                     sender: Scheduler.ReceiptSender(app: ClusterForwardingFixtures.app, recipient: .device(Self.otherDevice)), acknowledgement: nil),
            .receipt(key: DeliveryKey(1), events: [], sender: Scheduler.ReceiptSender(app: ClusterForwardingFixtures.app, msisdn: ClusterForwardingFixtures.msisdn),
                     acknowledgement: ForwardedAcknowledgement(delivery: DeliveryKey(1), device: ClusterForwardingFixtures.device, at: Timestamp(milliseconds: 0))),
            .manualFallback(DeliveryKey(42)),
            .events([]),
        ]
        for call in calls {
            let decoded = try ForwardedCallCodec.decodeCall(ForwardedCallCodec.encode(call))
            #expect(ClusterForwardingFixtures.same(decoded, call), "\(call)")
        }
    }

    @Test("the wire shapes: events by name with their fields, keys as numbers, the sender's recipient as stored text")
    func wireShapes() throws {
        let events = ForwardedCall.events([
            (DeliveryKey(7), .readReported(ClusterForwardingFixtures.device)),
            (DeliveryKey(7), .smsPartReported(reference: "abc", .delivered)),
            (DeliveryKey(263), .smsSubmitted(SMSSubmission(provider: "smpp", references: ["a", "b"]))),
            (DeliveryKey(263), .pushRejected(ClusterForwardingFixtures.device, .tokenDead)),
            (DeliveryKey(263), .cancelledBySender),
        ])
        let d = ClusterForwardingFixtures.device.guid.text
        #expect(String(decoding: try ForwardedCallCodec.encode(events), as: UTF8.self) == """
            {"kind":"events","events":[{"key":7,"event":{"kind":"readReported","device":"\(d)"}},\
            {"key":7,"event":{"kind":"smsPartReported","reference":"abc","outcome":"delivered"}},\
            {"key":263,"event":{"kind":"smsSubmitted","provider":"smpp","references":["a","b"]}},\
            {"key":263,"event":{"kind":"pushRejected","device":"\(d)","rejection":"tokenDead"}},\
            {"key":263,"event":{"kind":"cancelledBySender"}}]}
            """)
        #expect(String(decoding: try ForwardedCallCodec.encode(ClusterForwardingFixtures.receiptWithAcknowledgement), as: UTF8.self) == """
            {"kind":"receipt","key":258,"events":[{"kind":"deliveryAcknowledged","device":"\(d)"},{"kind":"readReported","device":"\(d)"}],\
            "sender":{"app":"\(ClusterForwardingFixtures.app.guid.text)","recipient":"+31612345678"},\
            "acknowledgement":{"delivery":258,"device":"\(d)","at":1700000000123}}
            """)
        #expect(String(decoding: try ForwardedCallCodec.encode(.manualFallback(DeliveryKey(42))), as: UTF8.self)
                == #"{"kind":"manualFallback","key":42}"#)
        // Upper-case GUIDs are read (and normalised); whitespace between tokens is JSON's own.
        let spaced = #"{ "kind" : "manualFallback", "key" : 9 }"#
        #expect(ClusterForwardingFixtures.same(try ForwardedCallCodec.decodeCall(Array(spaced.utf8)), .manualFallback(DeliveryKey(9))))
        let upper = #"{"kind":"events","events":[{"key":5,"event":{"kind":"pushAccepted","device":"\#(d.uppercased())"}}]}"#
        #expect(ClusterForwardingFixtures.same(try ForwardedCallCodec.decodeCall(Array(upper.utf8)),
                                               .events([(DeliveryKey(5), .pushAccepted(ClusterForwardingFixtures.device))])))
    }

    @Test("routed and timerFired events, keys ≤ 0 and negative times refuse to encode")
    func refusedEncodings() {
        let refused: [(ForwardedCall, String)] = [
            (.events([(DeliveryKey(1), .readReported(ClusterForwardingFixtures.device)), (DeliveryKey(1), .timerFired(.noRead))]), "timerFired"),
            (.events([(DeliveryKey(1), .routed(.reject(.unknownApp)))]), "routed"),
            (.receipt(key: DeliveryKey(1), events: [.routed(.reject(.noPushableDevice))],
                      sender: Scheduler.ReceiptSender(app: ClusterForwardingFixtures.app, msisdn: ClusterForwardingFixtures.msisdn),
                      acknowledgement: nil), "routed"),
            (.receipt(key: DeliveryKey(1), events: [.timerFired(.lifetime)],
                      sender: Scheduler.ReceiptSender(app: ClusterForwardingFixtures.app, msisdn: ClusterForwardingFixtures.msisdn),
                      acknowledgement: nil), "timerFired"),
            (.manualFallback(DeliveryKey(0)), "positive"),
            (.events([(DeliveryKey(-5), .expired)]), "positive"),
            (.receipt(key: DeliveryKey(1), events: [], sender: Scheduler.ReceiptSender(app: ClusterForwardingFixtures.app, msisdn: ClusterForwardingFixtures.msisdn),
                      acknowledgement: ForwardedAcknowledgement(delivery: DeliveryKey(1), device: ClusterForwardingFixtures.device,
                                                                at: Timestamp(milliseconds: -1))),
             "before 1970"),
        ]
        for (call, expected) in refused {
            #expect(Self.problem { try ForwardedCallCodec.encode(call) }?.contains(expected) == true, "\(call)")
        }
    }

    /// A valid receipt body with one member replaced, for the malformed cases.
    static let deviceText = ClusterForwardingFixtures.device.guid.text
    static let appText = ClusterForwardingFixtures.app.guid.text

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
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"expired\",\"device\":\"\(ClusterForwardingCodecTests.deviceText)\"}}]}",
         "unknown member \"device\""),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"smsSubmitted\",\"provider\":\"smpp\",\"references\":[]}}]}",
         "at least one part"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"smsSubmitted\",\"provider\":\"smpp\",\"references\":[1]}}]}",
         "references[0]: a number, not a string"),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"smsReportReceived\",\"outcome\":\"lost\"}}]}",
         "unknown SMS outcome \"lost\""),
        ("{\"kind\":\"events\",\"events\":[{\"key\":1,\"event\":{\"kind\":\"pushRejected\",\"device\":\"\(ClusterForwardingCodecTests.deviceText)\",\"rejection\":\"meh\"}}]}",
         "unknown push rejection \"meh\""),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingCodecTests.appText)\",\"recipient\":\"0612345678\"}}",
         "$.sender.recipient: neither an E.164 number nor device:<guid>"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingCodecTests.appText)\",\"recipient\":\"device:xyz\"}}",
         "$.sender.recipient: neither"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingCodecTests.appText)\",\"recipient\":\"+31 6 1234 5678\"}}",
         "$.sender.recipient: neither"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"{\(ClusterForwardingCodecTests.appText)}\",\"recipient\":\"+31612345678\"}}",
         "$.sender.app: not a GUID"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"recipient\":\"+31612345678\"}}", "$.sender: \"app\" is missing"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingCodecTests.appText)\",\"recipient\":\"+31612345678\"},\"acknowledgement\":null}",
         "$.acknowledgement: null, not an object"),
        ("{\"kind\":\"receipt\",\"key\":1,\"events\":[],\"sender\":{\"app\":\"\(ClusterForwardingCodecTests.appText)\",\"recipient\":\"+31612345678\"},"
            + "\"acknowledgement\":{\"delivery\":1,\"device\":\"\(ClusterForwardingCodecTests.deviceText)\",\"at\":-1}}", "$.acknowledgement.at: -1 is less than 0"),
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

    // MARK: - Helpers

    /// The error's description when `body` throws, else nil.
    static func problem<T>(_ body: () throws -> T) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
