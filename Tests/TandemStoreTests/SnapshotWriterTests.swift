import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore
@testable import TandemStoreSupport

@Suite("Snapshot writer")
struct SnapshotWriterTests {
    /// Deliveries in every state the lifecycle reaches, built by feeding it real events.
    static func deliveries() throws -> [Delivery] {
        let (d1, d2) = (try Fixture.device(1), try Fixture.device(2))
        let t = Fixture.t0
        var result: [Delivery] = []
        func run(_ record: NewDeliveryRecord, _ events: [DeliveryEvent]) {
            var delivery = record.delivery
            result.append(delivery)
            for (index, event) in events.enumerated() {
                _ = delivery.handle(event, now: t + .seconds(Int64(index + 1)))
                result.append(delivery)
            }
        }
        let two = try Fixture.pushed(to: [d1, d2], msisdn: Fixture.msisdn(1), content: Fixture.content(1))
        run(two, [.pushAccepted(d1), .pushRejected(d2, .tokenDead), .deliveryAcknowledged(d1), .timerFired(.noRead),
                  .smsSubmitted(SMSSubmission(provider: "smsc", references: ["ref \"quoted\" \\ ü"])), .smsReportReceived(.delivered)])
        let otp = try Fixture.pushed(to: [d1], policy: Fixture.otp, msisdn: Fixture.msisdn(2), content: Fixture.content(2))
        run(otp, [.pushAccepted(d1), .manualFallbackRequested, .smsSubmitted(SMSSubmission(provider: "smsc", references: ["x"])), .smsReportReceived(.failed)])
        run(otp, [.supersededBySMS])
        run(otp, [.pushAccepted(d1), .readReported(d1)])
        run(otp, [.timerFired(.lifetime)])
        let sms = Fixture.routed(.sms(SMSRoute(reason: .noPushableDevice, policy: Fixture.critical)),
                                 msisdn: try Fixture.msisdn(3), content: try Fixture.content(3))
        run(sms, [.smsSubmitted(SMSSubmission(provider: "smsc", references: ["r"])), .timerFired(.smsValidity)])
        run(Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(4), content: try Fixture.content(4)), [])
        return result
    }

    @Test("every snapshot decodes back to the delivery it was written from")
    func roundTrips() throws {
        let writer = SnapshotWriter()
        let decoder = JSONDecoder()
        let all = try Self.deliveries()
        #expect(all.count >= 15)
        for delivery in all {
            let text = try writer.write(delivery)
            #expect(try decoder.decode(Delivery.self, from: Data(text.utf8)) == delivery, "\(text)")
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
        }
    }

    @Test("an SMS report wait is written and read back; the default wait is left out")
    func reportWait() throws {
        let writer = SnapshotWriter()
        let route = RoutingDecision.sms(SMSRoute(reason: .noAppKey, policy: Fixture.critical))
        var waiting = Delivery(smsValidity: .seconds(60), smsReportWait: .seconds(600))
        _ = waiting.handle(.routed(route), now: Fixture.t0)
        let text = try writer.write(waiting)
        #expect(text.contains("\"smsReportWait\":"), "\(text)")
        var copy = try JSONDecoder().decode(Delivery.self, from: Data(text.utf8))
        #expect(copy == waiting && copy.smsReportWait == .seconds(600))
        #expect(copy.handle(.smsSubmitted(SMSSubmission(provider: "k", references: ["1"])), now: Fixture.t0).first
                == .schedule(.smsValidity, at: Fixture.t0 + .seconds(660)))
        var byDefault = Delivery(smsValidity: .seconds(60))
        _ = byDefault.handle(.routed(route), now: Fixture.t0)
        let short = try writer.write(byDefault)
        #expect(!short.contains("smsReportWait"), "\(short)")
        #expect(try JSONDecoder().decode(Delivery.self, from: Data(short.utf8)).smsReportWait == .seconds(3_600))
        let zero = Delivery(smsValidity: .seconds(60), smsReportWait: .zero)
        #expect(try JSONDecoder().decode(Delivery.self, from: Data(writer.write(zero).utf8)) == zero)
    }

    @Test("flags that are false and an empty timer table are left out; snapshots that spell them out read the same")
    func defaultsLeftOut() throws {
        let writer = SnapshotWriter()
        let encoder = JSONEncoder()
        let all = try Self.deliveries()
        for delivery in all {
            let text = try writer.write(delivery)
            #expect(!text.replacingOccurrences(of: "\"smsAllowed\":false", with: "").contains(":false"), "\(text)")
            #expect(!text.contains("\"timers\":{}"), "\(text)")
            // JSONEncoder writes every key, as snapshots did before: the same delivery reads back.
            let full = try encoder.encode(delivery)
            #expect(String(decoding: full, as: UTF8.self).contains("\"pushTerminated\":"))
            #expect(try JSONDecoder().decode(Delivery.self, from: full) == delivery)
        }
        #expect(all.contains { $0.pushTerminated } && all.contains { !$0.pushTerminated })
        #expect(all.contains { $0.smsRequested } && all.contains { !$0.timers.isEmpty } && all.contains { $0.timers.isEmpty })
        #expect(all.contains { $0.devices.contains { $0.progress.read } })
        // A pushed delivery's first snapshot: one device, nothing acknowledged yet.
        let pushed = try #require(all.first { $0.plan != nil })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try writer.write(pushed).utf8)) as? [String: Any])
        let expected: Set<String> = pushed.timers.isEmpty ? ["devices", "plan", "smsValidity", "state", "status"]
                                                          : ["devices", "plan", "smsValidity", "state", "status", "timers"]
        #expect(Set(object.keys) == expected)
    }

    @Test("with the policies' rows committed, snapshots name them by number and decode back through the catalog")
    func numberedPolicies() throws {
        let catalog = PolicyCatalog()
        catalog.learn([(Fixture.otp, 12)])
        let writer = SnapshotWriter(catalog: catalog)
        let all = try Self.deliveries()
        var spelledOut: [SnapshotWriter.SpelledOut] = []
        for delivery in all {
            var bytes: [UInt8] = []
            try writer.write(delivery, to: &bytes, spelledOut: &spelledOut)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(try catalog.decoder().decode(Delivery.self, from: Data(text.utf8)) == delivery, "\(text)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let value = (object["plan"] as? [String: Any])?["policy"] ?? object["policy"]
            switch delivery.policy {
            case Fixture.otp?: #expect((value as? NSNumber)?.int64Value == 12)
            case nil: #expect(value == nil)
            default: #expect(value is [String: Any])
            }
        }
        // The fixtures' other policy (Critical) is spelled out wherever it is used, and reported once.
        #expect(all.contains { $0.policy == Fixture.critical } && all.contains { $0.policy == Fixture.otp })
        #expect(spelledOut.map(\.policy) == [Fixture.critical])
        #expect(try JSONDecoder().decode(Policy.self, from: Data(try #require(spelledOut.first).body)) == Fixture.critical)
        // A number means nothing without the catalog.
        let numbered = try #require(all.first { $0.policy == Fixture.otp })
        #expect(throws: UnknownPolicyNumber.self) {
            try JSONDecoder().decode(Delivery.self, from: Data(try writer.write(numbered).utf8))
        }
    }

    @Test("the policy is stored once — a push's in its plan, an SMS route's at the top — and older snapshots with both still read")
    func policyStoredOnce() throws {
        let writer = SnapshotWriter()
        let all = try Self.deliveries()
        for delivery in all {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(try writer.write(delivery).utf8)) as? [String: Any])
            if let plan = delivery.plan {
                #expect(object["policy"] == nil)
                #expect(delivery.policy == plan.policy)
            } else {
                #expect((object["policy"] != nil) == (delivery.policy != nil))
            }
        }
        #expect(all.contains { $0.plan == nil && $0.policy != nil })
        // Before the split, a push's snapshot repeated its plan's policy at the top.
        let pushed = try #require(all.last { $0.plan != nil })
        var object = try #require(try JSONSerialization.jsonObject(with: Data(try writer.write(pushed).utf8)) as? [String: Any])
        object["policy"] = (object["plan"] as? [String: Any])?["policy"]
        let old = try JSONDecoder().decode(Delivery.self, from: try JSONSerialization.data(withJSONObject: object))
        #expect(old.policy == pushed.policy)
        #expect(old.plan == pushed.plan && old.state == pushed.state && old.status == pushed.status && old.devices == pushed.devices)
        #expect(old.timers == pushed.timers && old.resolution == pushed.resolution)
    }
}
