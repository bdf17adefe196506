import Testing
import TandemCore
@testable import TandemAPI

/// Tandem's delivery outcomes as SCG message states, and a request's state from its messages'.
@Suite("SCG states")
struct SCGStateTests {
    @Test("every resolution has its SCG state", arguments: [
        (Resolution.deliveredByPush, SCGMessageState.delivered), (.deliveredBySMS, .delivered), (.readByPush, .read),
        (.rejected, .failed), (.pushFailed, .failed), (.smsFailed, .failed), (.smsReportMissing, .failed),
        (.lifetimeExpired, .expired), (.smsExpired, .expired), (.validityExpired, .expired),
        (.withdrawn, .canceled), (.cancelled, .canceled),
    ])
    func resolutions(_ resolution: Resolution, _ state: SCGMessageState) {
        #expect(SCGMessageState.of(resolution) == state)
        #expect(state.isFinal)
    }

    @Test("a delivery in flight: ACCEPTED until a provider takes it, then SENT; DELIVERED while a read is awaited")
    func inFlight() {
        let device = DeviceID(GUID("aaaaaaaa-0000-4000-8000-000000000001")!)
        let target = PushTarget(deviceID: device, platform: .iOS, token: PushToken("tok")!)
        let at = Timestamp(milliseconds: 1_700_000_000_000)
        var delivery = Delivery(smsValidity: .seconds(3_600))
        #expect(SCGMessageState.of(delivery) == .accepted)
        _ = delivery.handle(.routed(.push(PushPlan(targets: [target], policy: PolicySet.specDefaults.critical, smsAllowed: true))), now: at)
        #expect(SCGMessageState.of(delivery) == .accepted)
        _ = delivery.handle(.pushAccepted(device), now: at)
        #expect(SCGMessageState.of(delivery) == .sent)
        _ = delivery.handle(.deliveryAcknowledged(device), now: at)
        #expect(!delivery.isFinal && SCGMessageState.of(delivery) == .delivered)
        _ = delivery.handle(.readReported(device), now: at)
        #expect(SCGMessageState.of(delivery) == .read)

        var sms = Delivery(smsValidity: .seconds(3_600))
        _ = sms.handle(.routed(.sms(SMSRoute(reason: .noAppKey, policy: PolicySet.specDefaults.defaultPolicy))), now: at)
        #expect(SCGMessageState.of(sms) == .accepted)
        _ = sms.handle(.smsSubmitted(SMSSubmission(provider: "smsc", references: ["r1"])), now: at)
        #expect(SCGMessageState.of(sms) == .sent)
    }

    @Test("a request: TRANSMITTING while any message is open, CANCELED when all were cancelled, else COMPLETED", arguments: [
        ([SCGMessageState.sent, .delivered], SCGRequestState.transmitting), ([.accepted], .transmitting),
        ([.delivered, .failed, .canceled], .completed), ([.canceled, .canceled], .canceled), ([.read], .completed),
        ([], .completed),
    ])
    func requests(_ states: [SCGMessageState], _ expected: SCGRequestState) {
        #expect(SCGRequestState.of(states) == expected)
    }
}
