import Foundation
import Testing
@testable import TandemCore

/// One test per lifecycle rule, written one event per line with the actions it must produce.
@Suite("Delivery state machine")
struct DeliveryTests {
    static let policies = PolicySet.specDefaults
    static let d1 = DeviceID(GUID("aaaaaaaa-0000-4000-8000-000000000001")!)
    static let d2 = DeviceID(GUID("aaaaaaaa-0000-4000-8000-000000000002")!)
    static let t1 = PushTarget(deviceID: d1, platform: .iOS, token: PushToken("tok1")!)
    static let t2 = PushTarget(deviceID: d2, platform: .android, token: PushToken("tok2")!)

    /// Milliseconds after an arbitrary epoch.
    static func at(_ seconds: Double) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + Int64((seconds * 1_000).rounded())) }

    static func push(_ type: AppMessageType, _ targets: [PushTarget] = [t1], smsAllowed: Bool = true) -> RoutingDecision {
        .push(PushPlan(targets: targets, policy: policies[type], smsAllowed: smsAllowed))
    }

    static func sms(_ type: AppMessageType, _ reason: SMSReason) -> RoutingDecision {
        .sms(SMSRoute(reason: reason, policy: policies[type]))
    }

    var d = Delivery(smsValidity: .seconds(3_600), smsReportWait: .zero)

    // MARK: Rule 1 — Default: push; SMS only when the push cannot be delivered; no timer-based fallback.

    @Test("Default: an acknowledged push is Delivered by push, reported once, with no timers and no SMS")
    mutating func defaultDelivered() {
        #expect(d.handle(.routed(Self.push(.default)), now: Self.at(0)) == [.record(.sent), .sendPush([DeliveryTests.t1], DeliveryTests.policies.defaultPolicy)])
        #expect(d.handle(.pushAccepted(Self.d1), now: Self.at(0.1)) == [.record(.accepted)])
        #expect(d.handle(.deliveryAcknowledged(Self.d1), now: Self.at(3_600)) == [.record(.delivered), .report(.delivered)])
        #expect(d.handle(.readReported(Self.d1), now: Self.at(3_700)) == [])
        #expect(d.resolution == .deliveredByPush)
        #expect(!d.smsRequested)
    }

    @Test("Default: no pushable device means SMS at once; its report makes it Delivered by SMS")
    mutating func defaultWithoutApp() {
        #expect(d.handle(.routed(Self.sms(.default, .noPushableDevice)), now: Self.at(0)) == [.record(.sent), .sendSMS])
        #expect(d.handle(.smsSubmitted(SMSSubmission(provider: "smsc", references: ["ref-1"])), now: Self.at(1)) == [.schedule(.smsValidity, at: Self.at(3_601)), .record(.accepted)])
        #expect(d.handle(.smsReportReceived(.delivered), now: Self.at(5)) == [.cancel(.smsValidity), .record(.delivered), .report(.delivered)])
        #expect(d.resolution == .deliveredBySMS)
        #expect(d.resolution?.channel == .sms)
    }

    @Test("Default: every token dead invalidates each registration and then sends the SMS")
    mutating func defaultAllTokensDead() {
        #expect(d.handle(.routed(Self.push(.default, [Self.t1, Self.t2])), now: Self.at(0)) == [.record(.sent), .sendPush([Self.t1, Self.t2], DeliveryTests.policies.defaultPolicy)])
        #expect(d.handle(.pushRejected(Self.d1, .tokenDead), now: Self.at(0.2)) == [.invalidateRegistration(Self.d1)])
        #expect(d.handle(.pushRejected(Self.d2, .tokenDead), now: Self.at(0.3)) == [.invalidateRegistration(Self.d2), .sendSMS])
        #expect(d.handle(.pushRejected(Self.d2, .tokenDead), now: Self.at(0.4)) == [])
        #expect(d.state == .awaitingSMSSubmit)
    }

    @Test("Default: one dead token among two devices does not send an SMS when the other delivers")
    mutating func defaultOneTokenDead() {
        _ = d.handle(.routed(Self.push(.default, [Self.t1, Self.t2])), now: Self.at(0))
        #expect(d.handle(.pushRejected(Self.d1, .tokenDead), now: Self.at(0.2)) == [.invalidateRegistration(Self.d1)])
        #expect(d.handle(.deliveryAcknowledged(Self.d2), now: Self.at(2)) == [.record(.delivered), .report(.delivered)])
        #expect(!d.smsRequested)
    }

    @Test("Default: without SMS allowed, an outright push failure is final Failed")
    mutating func defaultPushOnlyFailure() {
        _ = d.handle(.routed(Self.push(.default, smsAllowed: false)), now: Self.at(0))
        #expect(d.handle(.pushRejected(Self.d1, .other), now: Self.at(1)) == [.record(.failed), .report(.failed)])
        #expect(d.resolution == .pushFailed)
    }

    // MARK: Rule 2 — OTP: 30 s lifetime; SMS on outright failure; expiry without SMS; manual fallback terminates the push.

    @Test("OTP: the push carries the 30 s TTL and a lifetime timer is armed")
    mutating func otpRouted() {
        #expect(d.handle(.routed(Self.push(.otp)), now: Self.at(0)) == [.record(.sent), .sendPush([DeliveryTests.t1], DeliveryTests.policies.otp), .schedule(.lifetime, at: Self.at(30))])
        #expect(DeliveryTests.policies.otp.pushTTL == .limited(.seconds(30)))
    }

    @Test("OTP: an outright push failure sends the SMS")
    mutating func otpFailure() {
        _ = d.handle(.routed(Self.push(.otp)), now: Self.at(0))
        #expect(d.handle(.pushRejected(Self.d1, .other), now: Self.at(1)) == [.cancel(.lifetime), .sendSMS])
    }

    @Test("OTP: at the end of its lifetime an undelivered push is Failed (expired) and no SMS follows")
    mutating func otpExpires() {
        _ = d.handle(.routed(Self.push(.otp)), now: Self.at(0))
        #expect(d.handle(.timerFired(.lifetime), now: Self.at(29.999)) == [])
        #expect(d.handle(.timerFired(.lifetime), now: Self.at(30)) == [.record(.failed), .report(.failed)])
        #expect(d.resolution == .lifetimeExpired)
        #expect(d.resolution?.isExpiry == true)
        #expect(!d.smsRequested)
    }

    @Test("OTP: a manual fallback terminates the push and sends exactly one SMS")
    mutating func otpManualFallback() {
        _ = d.handle(.routed(Self.push(.otp)), now: Self.at(0))
        #expect(d.manualFallbackAvailability == .available)
        #expect(d.handle(.manualFallbackRequested, now: Self.at(10)) == [.cancel(.lifetime), .terminatePush([Self.d1]), .sendSMS])
        #expect(d.handle(.manualFallbackRequested, now: Self.at(11)) == [])
        #expect(d.handle(.deliveryAcknowledged(Self.d1), now: Self.at(12)) == [])
        #expect(d.handle(.smsSubmitted(SMSSubmission(provider: "smsc", references: ["r"])), now: Self.at(12)) == [.schedule(.smsValidity, at: Self.at(3_612)), .record(.accepted)])
        #expect(d.handle(.smsReportReceived(.delivered), now: Self.at(15)) == [.cancel(.smsValidity), .record(.delivered), .report(.delivered)])
        #expect(d.pushTerminated)
        #expect(d.manualFallbackAvailability == .alreadyFinal)
    }

    @Test("OTP: a manual fallback after delivery is refused")
    mutating func otpManualFallbackTooLate() {
        _ = d.handle(.routed(Self.push(.otp)), now: Self.at(0))
        _ = d.handle(.deliveryAcknowledged(Self.d1), now: Self.at(2))
        #expect(d.manualFallbackAvailability == .alreadyFinal)
        #expect(d.handle(.manualFallbackRequested, now: Self.at(10)) == [])
        #expect(!d.smsRequested)
    }

    @Test("Default and Critical refuse manual fallbacks (their policies say notAllowed)", arguments: [AppMessageType.default, .critical])
    func manualFallbackRefused(type: AppMessageType) {
        var delivery = Delivery(smsValidity: .seconds(60))
        _ = delivery.handle(.routed(Self.push(type)), now: Self.at(0))
        #expect(delivery.manualFallbackAvailability == .notAllowedByPolicy)
        #expect(delivery.handle(.manualFallbackRequested, now: Self.at(1)) == [])
    }

    // MARK: Rule 3 — Critical: SMS when no ack or no read within 30 s; a read inside the window cancels it.

    @Test("Critical: no ack within 30 s sends the SMS at 30 s, never at 29.99 s")
    mutating func criticalNoAck() {
        #expect(d.handle(.routed(Self.push(.critical)), now: Self.at(0)) == [.record(.sent), .sendPush([DeliveryTests.t1], DeliveryTests.policies.critical),
                                                                             .schedule(.noDeliveryAck, at: Self.at(30)), .schedule(.noRead, at: Self.at(30))])
        #expect(d.handle(.timerFired(.noDeliveryAck), now: Self.at(29.99)) == [])
        #expect(d.handle(.timerFired(.noDeliveryAck), now: Self.at(30)) == [.cancel(.noRead), .sendSMS])
        #expect(d.handle(.timerFired(.noRead), now: Self.at(30)) == [])
    }

    @Test("Critical: a read at 10 s cancels both timers and never sends an SMS")
    mutating func criticalReadInTime() {
        _ = d.handle(.routed(Self.push(.critical)), now: Self.at(0))
        #expect(d.handle(.readReported(Self.d1), now: Self.at(10)) == [.cancel(.noDeliveryAck), .cancel(.noRead), .record(.read), .report(.read)])
        #expect(d.handle(.timerFired(.noRead), now: Self.at(30)) == [])
        #expect(d.handle(.timerFired(.noDeliveryAck), now: Self.at(30)) == [])
        #expect(!d.smsRequested)
        #expect(d.resolution == .readByPush)
    }

    @Test("Critical: an ack without a read still sends the SMS when the read window ends")
    mutating func criticalAckedNotRead() {
        _ = d.handle(.routed(Self.push(.critical)), now: Self.at(0))
        #expect(d.handle(.deliveryAcknowledged(Self.d1), now: Self.at(5)) == [.cancel(.noDeliveryAck), .record(.delivered)])
        #expect(d.handle(.timerFired(.noRead), now: Self.at(30)) == [.sendSMS])
        #expect(d.isFinal == false)
    }

    @Test("Critical push-only: delivery is the outcome, since no SMS can follow")
    mutating func criticalPushOnly() {
        #expect(d.handle(.routed(Self.push(.critical, smsAllowed: false)), now: Self.at(0)) == [.record(.sent), .sendPush([DeliveryTests.t1], DeliveryTests.policies.critical)])
        #expect(d.handle(.deliveryAcknowledged(Self.d1), now: Self.at(5)) == [.record(.delivered), .report(.delivered)])
    }

    // MARK: Rule 4 — the first ack or read from any of several devices wins.

    @Test("several devices: the first ack and the first read win, later ones change nothing")
    mutating func firstWins() {
        _ = d.handle(.routed(Self.push(.critical, [Self.t1, Self.t2])), now: Self.at(0))
        #expect(d.handle(.deliveryAcknowledged(Self.d2), now: Self.at(1)) == [.cancel(.noDeliveryAck), .record(.delivered)])
        #expect(d.handle(.deliveryAcknowledged(Self.d1), now: Self.at(2)) == [])
        #expect(d.handle(.readReported(Self.d1), now: Self.at(3)) == [.cancel(.noRead), .record(.read), .report(.read)])
        #expect(d.handle(.readReported(Self.d2), now: Self.at(4)) == [])
    }

    // MARK: Rule 5 — acks and reads after the SMS went out are recorded only; one final status, reported once.

    @Test("Critical: an ack and a read after the SMS went out leave exactly one final report")
    mutating func lateReceipts() {
        _ = d.handle(.routed(Self.push(.critical)), now: Self.at(0))
        #expect(d.handle(.timerFired(.noRead), now: Self.at(30)) == [.cancel(.noDeliveryAck), .sendSMS])
        #expect(d.handle(.smsSubmitted(SMSSubmission(provider: "smsc", references: ["m-1"])), now: Self.at(30.5)) == [.schedule(.smsValidity, at: Self.at(3_630.5)), .record(.accepted)])
        #expect(d.handle(.deliveryAcknowledged(Self.d1), now: Self.at(31)) == [])
        #expect(d.handle(.readReported(Self.d1), now: Self.at(32)) == [])
        #expect(d.handle(.smsReportReceived(.delivered), now: Self.at(33)) == [.cancel(.smsValidity), .record(.delivered), .report(.delivered)])
        #expect(d.handle(.smsReportReceived(.delivered), now: Self.at(34)) == [])
        #expect(d.devices[Self.d1]?.read == true)
        #expect(d.resolution == .deliveredBySMS)
    }

    // MARK: Rule 6 — SMS reports map to Delivered / Failed; validity expiry is Failed (expired).

    @Test("SMS reports map to a final status", arguments: [
        (SMSOutcome.delivered, Resolution.deliveredBySMS, DeliveryStatus.delivered),
        (.failed, .smsFailed, .failed), (.expired, .smsExpired, .failed),
    ])
    func smsReports(outcome: SMSOutcome, resolution: Resolution, status: DeliveryStatus) {
        var delivery = Delivery(smsValidity: .seconds(60))
        _ = delivery.handle(.routed(Self.sms(.default, .noAppKey)), now: Self.at(0))
        _ = delivery.handle(.smsSubmitted(SMSSubmission(provider: "smsc", references: ["x"])), now: Self.at(1))
        #expect(delivery.handle(.smsReportReceived(outcome), now: Self.at(2)) == [.cancel(.smsValidity), .record(status), .report(status)])
        #expect(delivery.resolution == resolution)
    }

    @Test("an SMS without a final report by the end of its validity is Failed, its report missing")
    mutating func smsValidityEnds() {
        _ = d.handle(.routed(Self.sms(.default, .noAppKey)), now: Self.at(0))
        _ = d.handle(.smsSubmitted(SMSSubmission(provider: "smsc", references: ["x"])), now: Self.at(1))
        #expect(d.handle(.timerFired(.smsValidity), now: Self.at(3_600)) == [])
        #expect(d.handle(.timerFired(.smsValidity), now: Self.at(3_601)) == [.record(.failed), .report(.failed)])
        #expect(d.resolution == .smsReportMissing)
        #expect(d.resolution?.channel == .sms)
    }

    // MARK: Rule 6a — a submitted SMS waits for its report until its validity ends plus `smsReportWait`.

    /// Validity 1 h, report wait 10 min, submitted at t = 1 s: the timer is due at 4_201 s.
    static func waitingSMS() -> Delivery {
        var delivery = Delivery(smsValidity: .seconds(3_600), smsReportWait: .seconds(600))
        _ = delivery.handle(.routed(Self.sms(.default, .noAppKey)), now: Self.at(0))
        return delivery
    }

    @Test("the SMS's timer is armed at the end of its validity plus the report wait")
    func smsTimerIncludesTheReportWait() {
        var delivery = Self.waitingSMS()
        #expect(delivery.handle(.smsSubmitted(SMSSubmission(provider: "kannel", references: ["k1"])), now: Self.at(1))
                == [.schedule(.smsValidity, at: Self.at(4_201)), .record(.accepted)])
        #expect(delivery.timers == [.smsValidity: Self.at(4_201)])
    }

    @Test("a report after the validity ended but within the report wait is the outcome")
    func reportWithinTheWait() {
        var delivery = Self.waitingSMS()
        _ = delivery.handle(.smsSubmitted(SMSSubmission(provider: "kannel", references: ["k1"])), now: Self.at(1))
        #expect(delivery.handle(.timerFired(.smsValidity), now: Self.at(3_601)) == [])
        #expect(delivery.handle(.smsPartReported(reference: "k1", .delivered), now: Self.at(3_700))
                == [.cancel(.smsValidity), .record(.delivered), .report(.delivered)])
        #expect(delivery.resolution == .deliveredBySMS)
        #expect(delivery.handle(.timerFired(.smsValidity), now: Self.at(4_201)) == [])
    }

    @Test("with no report by the end of the wait the SMS ends Failed once; a report after that changes nothing")
    func noReportByTheEndOfTheWait() {
        var delivery = Self.waitingSMS()
        _ = delivery.handle(.smsSubmitted(SMSSubmission(provider: "kannel", references: ["k1"])), now: Self.at(1))
        #expect(delivery.handle(.timerFired(.smsValidity), now: Self.at(4_200.999)) == [])
        #expect(delivery.state == .awaitingSMSReport && delivery.status == .accepted)
        #expect(delivery.handle(.timerFired(.smsValidity), now: Self.at(4_201)) == [.record(.failed), .report(.failed)])
        #expect((delivery.state, delivery.status, delivery.resolution) == (.final, .failed, .smsReportMissing))
        #expect(delivery.timers.isEmpty)
        let final = delivery
        #expect(delivery.handle(.smsPartReported(reference: "k1", .delivered), now: Self.at(4_300)) == [])
        #expect(delivery.handle(.smsReportReceived(.delivered), now: Self.at(4_301)) == [])
        #expect(delivery.handle(.timerFired(.smsValidity), now: Self.at(9_999)) == [])
        #expect(delivery == final)
    }

    @Test("the report wait survives a snapshot round trip; a snapshot without it reads with the default wait")
    func reportWaitSnapshot() throws {
        var delivery = Self.waitingSMS()
        let data = try JSONEncoder().encode(delivery)
        var copy = try JSONDecoder().decode(Delivery.self, from: data)
        #expect(copy == delivery && copy.smsReportWait == .seconds(600))
        #expect(copy.handle(.smsSubmitted(SMSSubmission(provider: "kannel", references: ["k1"])), now: Self.at(1))
                == delivery.handle(.smsSubmitted(SMSSubmission(provider: "kannel", references: ["k1"])), now: Self.at(1)))
        var object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["smsReportWait"] = nil
        var older = try JSONDecoder().decode(Delivery.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(older.smsReportWait == Delivery.defaultSMSReportWait && Delivery.defaultSMSReportWait == .seconds(3_600))
        #expect(older.handle(.smsSubmitted(SMSSubmission(provider: "kannel", references: ["k1"])), now: Self.at(1))
                == [.schedule(.smsValidity, at: Self.at(7_201)), .record(.accepted)])
    }

    @Test("an SMS the SMSC refuses outright is Failed")
    mutating func smsRefused() {
        _ = d.handle(.routed(Self.sms(.otp, .noPushableDevice)), now: Self.at(0))
        #expect(d.handle(.smsReportReceived(.failed), now: Self.at(1)) == [.record(.failed), .report(.failed)])
    }

    // MARK: Rule 7 — a timer firing where it no longer matters is a no-op.

    @Test("timers firing after they stopped mattering do nothing", arguments: TimerKind.allCases)
    func staleTimers(kind: TimerKind) {
        var delivery = Delivery(smsValidity: .seconds(60))
        _ = delivery.handle(.routed(Self.push(.critical)), now: Self.at(0))
        _ = delivery.handle(.readReported(Self.d1), now: Self.at(1))
        #expect(delivery.handle(.timerFired(kind), now: Self.at(100_000)) == [])
        var fresh = Delivery(smsValidity: .seconds(60))
        #expect(fresh.handle(.timerFired(kind), now: Self.at(100_000)) == [])
    }

    @Test("a rejected message is final at once and reported once")
    mutating func rejected() {
        #expect(d.handle(.routed(.reject(.noSupportedChannel)), now: Self.at(0)) == [.record(.rejected), .report(.rejected)])
        #expect(d.handle(.routed(Self.push(.default)), now: Self.at(1)) == [])
        #expect(d.rejectReason == .noSupportedChannel)
    }

    @Test("the message's validity ending makes a pending delivery Failed, or Delivered when it was acked")
    mutating func validityEnds() {
        _ = d.handle(.routed(Self.push(.default)), now: Self.at(0))
        #expect(d.handle(.expired, now: Self.at(7_200)) == [.record(.failed), .report(.failed)])
        #expect(d.resolution == .validityExpired)
        var acked = Delivery(smsValidity: .seconds(60))
        _ = acked.handle(.routed(Self.push(.critical)), now: Self.at(0))
        _ = acked.handle(.deliveryAcknowledged(Self.d1), now: Self.at(1))
        #expect(acked.handle(.expired, now: Self.at(10)) == [.cancel(.noRead), .report(.delivered)])
    }

    @Test("a delivery in flight survives an encode/decode round trip, timers and all")
    mutating func codableRoundTrip() throws {
        _ = d.handle(.routed(Self.push(.critical, [Self.t1, Self.t2])), now: Self.at(0))
        _ = d.handle(.deliveryAcknowledged(Self.d1), now: Self.at(1))
        let data = try JSONEncoder().encode(d)
        var copy = try JSONDecoder().decode(Delivery.self, from: data)
        #expect(copy == d)
        #expect(copy.timers == [.noRead: Self.at(30)])
        #expect(copy.handle(.timerFired(.noRead), now: Self.at(30)) == [.sendSMS])
    }

    @Test("an action is a few words (the push's payload is boxed), and a boxed push compares and hashes by value")
    func actionsAreSmall() throws {
        #expect(MemoryLayout<DeliveryAction>.stride <= 32)
        let push = DeliveryAction.sendPush([Self.t1], Self.policies.critical)
        #expect(push == .sendPush([Self.t1], Self.policies.critical))
        #expect(push != .sendPush([Self.t1], Self.policies.otp) && push != .sendPush([Self.t2], Self.policies.critical))
        #expect(Set([push, .sendPush([Self.t1], Self.policies.critical), .sendSMS]).count == 2)
    }
}

/// Delivery reports per SMS part: a multipart SMS is delivered once every part is, and fails with its first
/// failed or expired part.
@Suite("Delivery state machine: SMS part reports")
struct SMSPartReportTests {
    static let at = DeliveryTests.at
    var d = Delivery(smsValidity: .seconds(3_600))

    init() {
        _ = d.handle(.routed(DeliveryTests.sms(.default, .noPushableDevice)), now: Self.at(0))
        _ = d.handle(.smsSubmitted(SMSSubmission(provider: "smpp", references: ["p1", "p2", "p3"])), now: Self.at(1))
    }

    @Test("three parts: delivered only after the third part's report; repeats and strangers change nothing")
    mutating func allPartsDelivered() {
        #expect(d.handle(.smsPartReported(reference: "p2", .delivered), now: Self.at(2)) == [])
        #expect(d.handle(.smsPartReported(reference: "p2", .delivered), now: Self.at(2)) == [])
        #expect(d.handle(.smsPartReported(reference: "other", .delivered), now: Self.at(2)) == [])
        #expect(d.handle(.smsPartReported(reference: "p1", .delivered), now: Self.at(3)) == [])
        #expect(d.state == .awaitingSMSReport)
        #expect(d.handle(.smsPartReported(reference: "p3", .delivered), now: Self.at(4))
                == [.cancel(.smsValidity), .record(.delivered), .report(.delivered)])
        #expect(d.resolution == .deliveredBySMS)
    }

    @Test("one failed part fails the SMS at once; later reports change nothing")
    mutating func failedPart() {
        #expect(d.handle(.smsPartReported(reference: "p1", .delivered), now: Self.at(2)) == [])
        #expect(d.handle(.smsPartReported(reference: "p3", .failed), now: Self.at(3))
                == [.cancel(.smsValidity), .record(.failed), .report(.failed)])
        #expect(d.handle(.smsPartReported(reference: "p2", .delivered), now: Self.at(4)) == [])
        #expect(d.resolution == .smsFailed)
    }

    @Test("an expired part expires the SMS")
    mutating func expiredPart() {
        _ = d.handle(.smsPartReported(reference: "p1", .expired), now: Self.at(2))
        #expect(d.resolution == .smsExpired)
    }

    @Test("the submission and delivered parts survive a snapshot round trip")
    mutating func snapshot() throws {
        _ = d.handle(.smsPartReported(reference: "p1", .delivered), now: Self.at(2))
        var copy = try JSONDecoder().decode(Delivery.self, from: JSONEncoder().encode(d))
        #expect(copy == d)
        #expect(copy.sms?.references == ["p1", "p2", "p3"])
        #expect(copy.handle(.smsPartReported(reference: "p1", .delivered), now: Self.at(3)) == [])
    }
}
