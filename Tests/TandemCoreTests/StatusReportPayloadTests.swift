import Foundation
import Testing
import TandemCore

@Suite("Status report payloads")
struct StatusReportPayloadTests {
    private let key = DeliveryKey(42)
    private let messageID = GUID("00000000-0000-4000-8000-000000000001")!
    private let at = Timestamp(milliseconds: 1_700_000_005_000)
    private let acceptedAt = Timestamp(milliseconds: 1_700_000_000_000)

    private var stored: StoredReportValues {
        StoredReportValues(deliveryKey: key, acceptedAt: acceptedAt, messageID: messageID, msisdn: "+31612345678",
                           reference: "order \"42\" \\ ✓")
    }

    @Test("an SMS fallback's outcome is written as compact JSON and read back with the stored delivery's values")
    func outcomeRoundTrip() throws {
        var delivery = Delivery(smsValidity: .seconds(60))
        let device = DeviceID(GUID("00000000-0000-4000-8000-0000000000d1")!)
        let plan = PushPlan(targets: [PushTarget(deviceID: device, platform: .iOS, token: PushToken("t-1")!)],
                            policy: PolicySet.specDefaults.critical, smsAllowed: true)
        _ = delivery.handle(.routed(.push(plan)), now: acceptedAt)
        _ = delivery.handle(.pushAccepted(device), now: acceptedAt)
        // No delivery ack in time: the SMS fallback, submitted and reported delivered.
        let now = try #require(delivery.timers[.noDeliveryAck])
        let fallback = delivery.handle(.timerFired(.noDeliveryAck), now: now)
        #expect(fallback.contains { if case .sendSMS = $0 { true } else { false } })
        _ = delivery.handle(.smsSubmitted(SMSSubmission(provider: "smpp", references: ["r1"])), now: now)
        let final = PersistedEffects(actions: delivery.handle(.smsReportReceived(.delivered), now: now)).report
        let status = try #require(final)
        let outcome = StatusReportOutcome(status: status, at: now, delivery: delivery)
        #expect(outcome.fallback && outcome.smsCause != nil && outcome.channel == .sms)
        let decoded = try StatusReportPayload(payload: outcome.storedText, stored: stored)
        #expect(decoded == StatusReportPayload(at: now, acceptedAt: acceptedAt, deliveryKey: key, messageID: messageID,
                                               msisdn: "+31612345678", reference: "order \"42\" \\ ✓", status: status,
                                               resolution: delivery.resolution?.rawValue, channel: .sms, fallback: true,
                                               smsCause: delivery.smsCause?.rawValue, rejectReason: nil))
    }

    @Test("a payload queued by an earlier version (every member in the JSON) reads alike, with or without the delivery's row")
    func earlierPayloads() throws {
        let whole = StatusReportPayload(at: at, acceptedAt: acceptedAt, deliveryKey: key, messageID: messageID, msisdn: "+31612345678",
                                        reference: nil, status: .rejected, rejectReason: "noChannel")
        let text = String(decoding: try JSONEncoder().encode(whole), as: UTF8.self)
        #expect(try StatusReportPayload(payload: text, stored: nil) == whole)
        #expect(try StatusReportPayload(payload: text, stored: stored) == whole)
    }

    @Test("an outcome without a stored delivery, or a payload without a status, is an error, not a report")
    func incomplete() {
        let outcome = #"{"at":1700000005000,"status":"Delivered","resolution":null,"channel":null,"fallback":false,"smsCause":null,"rejectReason":null}"#
        #expect(throws: DecodingError.self) { try StatusReportPayload(payload: outcome, stored: nil) }
        #expect(throws: DecodingError.self) { try StatusReportPayload(payload: #"{"at":1}"#, stored: stored) }
        #expect(throws: DecodingError.self) { try StatusReportPayload(payload: "not json", stored: stored) }
    }
}
