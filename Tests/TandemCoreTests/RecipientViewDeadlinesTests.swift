import Testing
@testable import TandemCore

/// The deadlines the dashboard draws beside a recipient's events (`RecipientView.deadlines`).
@Suite("Recipient timeline deadlines")
struct RecipientViewDeadlinesTests {
    static let policies = PolicySet.specDefaults
    static let device = DeviceID(GUID("aaaaaaaa-0000-4000-8000-000000000001")!)
    static let target = PushTarget(deviceID: device, platform: .iOS, token: PushToken("tok1")!)
    static let msisdn = MSISDN("+31612345678")!

    static func at(_ seconds: Double) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + Int64((seconds * 1_000).rounded())) }

    /// The view of `delivery` after `events` (each applied at its time and logged as the scheduler logs it).
    static func view(_ events: [(DeliveryEvent, Double)], smsValidity: Duration = .seconds(600)) -> RecipientView {
        var delivery = Delivery(smsValidity: smsValidity, smsReportWait: .seconds(60))
        var log: [TimelineEvent] = []
        for (event, seconds) in events {
            _ = delivery.handle(event, now: at(seconds))
            log.append(TimelineEvent(at: at(seconds), kind: event.logKind, detail: event.logDetail))
        }
        return RecipientView(key: DeliveryKey(1), recipient: .msisdn(msisdn), delivery: delivery, updatedAt: at(0), events: log)
    }

    static func critical(smsAllowed: Bool = true) -> DeliveryEvent {
        .routed(.push(PushPlan(targets: [target], policy: policies.critical, smsAllowed: smsAllowed)))
    }

    @Test("a Critical push still waiting shows both armed windows at routed + 30 s")
    func armed() {
        let view = Self.view([(Self.critical(), 2), (.pushAccepted(Self.device), 2.1)])
        #expect(view.deadlines == [TimelineDeadline(kind: .noDeliveryAck, at: Self.at(32), armed: true),
                                   TimelineDeadline(kind: .noRead, at: Self.at(32), armed: true)])
    }

    @Test("after the fallback the fired windows stay on the timeline, unarmed, and the SMS validity is added")
    func fired() {
        let view = Self.view([(Self.critical(), 2), (.pushAccepted(Self.device), 2.1), (.timerFired(.noDeliveryAck), 32),
                              (.smsSubmitted(SMSSubmission(provider: "sim", references: ["r1"])), 32.2)])
        #expect(view.deadlines == [TimelineDeadline(kind: .noDeliveryAck, at: Self.at(32), armed: false),
                                   TimelineDeadline(kind: .noRead, at: Self.at(32), armed: false),
                                   TimelineDeadline(kind: .smsValidity, at: Self.at(32.2 + 600 + 60), armed: true)])
    }

    @Test("a plan that allows no SMS has no fallback windows; an OTP shows its lifetime")
    func noFallback() {
        #expect(Self.view([(Self.critical(smsAllowed: false), 0)]).deadlines.isEmpty)
        let otp = Self.view([(.routed(.push(PushPlan(targets: [Self.target], policy: Self.policies.otp, smsAllowed: true))), 1)])
        #expect(Self.policies.otp.lifetime.duration == .seconds(30))
        #expect(otp.deadlines.filter { $0.kind == .lifetime } == [TimelineDeadline(kind: .lifetime, at: Self.at(31), armed: true)])
    }

    @Test("a delivery routed straight to SMS has no push deadlines")
    func smsOnly() {
        let view = Self.view([(.routed(.sms(SMSRoute(reason: .noAppKey, policy: Self.policies.defaultPolicy))), 0)])
        #expect(view.deadlines.isEmpty)
    }
}
