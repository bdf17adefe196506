import Testing
@testable import TandemCore

/// `cancelledBySender`: the sender's cancel (SCG `{"state":"CANCELED"}`) ends only what has not gone out.
@Suite("Delivery: cancelled by the sender")
struct DeliveryCancelTests {
    typealias T = DeliveryTests
    var d = Delivery(smsValidity: .seconds(3_600), smsReportWait: .zero)

    @Test("before routing: Cancelled at once, reported once")
    mutating func beforeRouting() {
        #expect(d.handle(.cancelledBySender, now: T.at(0)) == [.record(.cancelled), .report(.cancelled)])
        #expect(d.resolution == .cancelled)
        #expect(d.resolution?.channel == nil)
        #expect(d.handle(.routed(T.push(.default)), now: T.at(1)) == [])
    }

    @Test("a push no service has taken yet is withdrawn and its timers stop; a late acceptance changes nothing")
    mutating func pushInFlight() {
        _ = d.handle(.routed(T.push(.critical, [T.t1, T.t2])), now: T.at(0))
        #expect(d.handle(.cancelledBySender, now: T.at(1)) == [
            .terminatePush([T.d1, T.d2]), .cancel(.noDeliveryAck), .cancel(.noRead), .record(.cancelled), .report(.cancelled),
        ])
        #expect(d.resolution == .cancelled && d.status == .cancelled)
        #expect(d.pushTerminated)
        #expect(d.handle(.pushAccepted(T.d1), now: T.at(2)) == [])
        #expect(d.handle(.timerFired(.noDeliveryAck), now: T.at(30)) == [])
        #expect(!d.smsRequested)
    }

    @Test("a push a service has taken carries on: the cancel changes nothing")
    mutating func pushTaken() {
        _ = d.handle(.routed(T.push(.default)), now: T.at(0))
        _ = d.handle(.pushAccepted(T.d1), now: T.at(0.1))
        #expect(d.handle(.cancelledBySender, now: T.at(1)) == [])
        #expect(d.state == .pushing)
        #expect(d.handle(.deliveryAcknowledged(T.d1), now: T.at(2)) == [.record(.delivered), .report(.delivered)])
    }

    @Test("an SMS already requested or submitted carries on")
    mutating func smsRequested() {
        _ = d.handle(.routed(T.sms(.default, .noPushableDevice)), now: T.at(0))
        #expect(d.handle(.cancelledBySender, now: T.at(0.5)) == [])
        _ = d.handle(.smsSubmitted(SMSSubmission(provider: "smsc", references: ["r"])), now: T.at(1))
        #expect(d.handle(.cancelledBySender, now: T.at(2)) == [])
        #expect(d.handle(.smsReportReceived(.delivered), now: T.at(3)) == [.cancel(.smsValidity), .record(.delivered), .report(.delivered)])
    }

    @Test("a final delivery stays as it ended")
    mutating func afterFinal() {
        _ = d.handle(.routed(.reject(.noPushableDevice)), now: T.at(0))
        #expect(d.handle(.cancelledBySender, now: T.at(1)) == [])
        #expect(d.resolution == .rejected)
    }

    @Test("the event's log name")
    func logKind() {
        #expect(DeliveryEvent.cancelledBySender.logKind == "cancelledBySender")
        #expect(DeliveryEvent.cancelledBySender.logDetail == "")
        #expect(Resolution.cancelled.status == .cancelled && !Resolution.cancelled.isExpiry)
    }
}
