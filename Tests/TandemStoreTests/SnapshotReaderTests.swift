import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore
@testable import TandemStoreSupport

@Suite("Snapshot reader (recovery's fast path)")
struct SnapshotReaderTests {
    static func catalog() -> PolicyCatalog {
        let catalog = PolicyCatalog()
        catalog.learn([(Fixture.otp, 12), (Fixture.critical, 13)])
        return catalog
    }

    @Test("every state the lifecycle reaches reads back equal to what JSONDecoder reads, without JSONDecoder")
    func readsTheWritersShape() throws {
        let catalog = Self.catalog()
        let writer = SnapshotWriter(catalog: catalog)
        let all = try SnapshotWriterTests.deliveries()
        for delivery in all {
            let text = try writer.write(delivery)
            let fast = SnapshotReader.read(text, policy: { catalog.policy(numbered: $0) })
            #expect(fast == delivery, "\(text)")
            #expect(try catalog.decoder().decode(Delivery.self, from: Data(text.utf8)) == fast)
        }
        // The fixtures cover what the reader must know: SMS, rejections, timers, flags, both policy places.
        #expect(all.contains { $0.sms != nil } && all.contains { !$0.timers.isEmpty })
        #expect(all.contains { $0.devices.contains { $0.progress.rejection != nil } })
        #expect(all.contains { $0.plan == nil && $0.policy != nil } && all.contains { $0.pushTerminated })
    }

    @Test("escaped characters in strings read back")
    func escapes() throws {
        let catalog = Self.catalog()
        var delivery = Fixture.routed(.sms(SMSRoute(reason: .noPushableDevice, policy: Fixture.critical)),
                                      msisdn: try Fixture.msisdn(3), content: try Fixture.content(3)).delivery
        let reference = "ref \"quoted\" \\ ü\tx/y"
        _ = delivery.handle(.smsSubmitted(SMSSubmission(provider: "smsc", references: [reference])), now: Fixture.t0)
        let text = try SnapshotWriter(catalog: catalog).write(delivery)
        #expect(text.contains("\\\""))
        let fast = SnapshotReader.read(text, policy: { catalog.policy(numbered: $0) })
        #expect(fast?.sms?.references == [reference])
        #expect(fast == delivery)
    }

    @Test("a target's own APNs environment and topic are written and read back (also by JSONDecoder); absent ones are left out")
    func targetEnvironment() throws {
        let catalog = Self.catalog()
        let targets = [PushTarget(deviceID: DeviceID(try Fixture.guid(0xD1)), platform: .iOS, token: try #require(PushToken("a")),
                                  apnsSandbox: true, apnsTopic: "com.acme.app.voip"),
                       PushTarget(deviceID: DeviceID(try Fixture.guid(0xD2)), platform: .iOS, token: try #require(PushToken("b")),
                                  apnsSandbox: false),
                       PushTarget(deviceID: DeviceID(try Fixture.guid(0xD3)), platform: .android, token: try #require(PushToken("c")))]
        let delivery = Fixture.routed(.push(PushPlan(targets: targets, policy: Fixture.otp, smsAllowed: false)),
                                      msisdn: try Fixture.msisdn(4), content: try Fixture.content(4)).delivery
        let text = try SnapshotWriter(catalog: catalog).write(delivery)
        #expect(text.components(separatedBy: "apnsSandbox").count == 3 && text.components(separatedBy: "apnsTopic").count == 2, "\(text)")
        let fast = SnapshotReader.read(text, policy: { catalog.policy(numbered: $0) })
        #expect(fast == delivery)
        #expect(fast?.plan?.targets == targets)
        #expect(try catalog.decoder().decode(Delivery.self, from: Data(text.utf8)) == delivery)
    }

    @Test("an SMS report wait other than the default is written and read back; the default is left out")
    func reportWait() throws {
        let catalog = Self.catalog()
        let writer = SnapshotWriter(catalog: catalog)
        for wait in [Delivery.defaultSMSReportWait, .seconds(90)] {
            var delivery = Delivery(smsValidity: .seconds(3_600), smsReportWait: wait)
            _ = delivery.handle(.routed(.sms(SMSRoute(reason: .noPushableDevice, policy: Fixture.critical))), now: Fixture.t0)
            let text = try writer.write(delivery)
            #expect(text.contains("smsReportWait") == (wait != Delivery.defaultSMSReportWait))
            let fast = SnapshotReader.read(text, policy: { catalog.policy(numbered: $0) })
            #expect(fast == delivery)
            #expect(fast?.smsReportWait == wait)
        }
    }

    @Test("what the fast path does not know is left to JSONDecoder: a spelled-out policy, an unknown number or key, \\u escapes, spelled-out flags")
    func declinesTheRest() throws {
        let catalog = Self.catalog()
        let numbered = SnapshotWriter(catalog: catalog)
        let plain = SnapshotWriter()
        let pushed = try #require(try SnapshotWriterTests.deliveries().first { $0.plan?.policy == Fixture.otp })
        let known = try numbered.write(pushed)
        let resolve: (Int64) -> Policy? = { catalog.policy(numbered: $0) }
        #expect(SnapshotReader.read(known, policy: resolve) == pushed)
        #expect(SnapshotReader.read(try plain.write(pushed), policy: resolve) == nil)      // policy spelled out
        #expect(SnapshotReader.read(known, policy: { _ in nil }) == nil)                    // number unknown
        #expect(SnapshotReader.read(known.replacingOccurrences(of: "\"state\"", with: "\"future\":1,\"state\""), policy: resolve) == nil)
        #expect(SnapshotReader.read(known + " x", policy: resolve) == nil)
        #expect(SnapshotReader.read(String(known.dropLast()), policy: resolve) == nil)
        let encoded = String(decoding: try JSONEncoder().encode(pushed), as: UTF8.self)  // every flag spelled out
        #expect(encoded.contains("\"pushTerminated\":false"))
        #expect(SnapshotReader.read(encoded, policy: resolve) == nil)  // JSONEncoder spells the policy out too
        let escaped = known.replacingOccurrences(of: "\"state\":\"pushing\"", with: "\"state\":\"push\\u0069ng\"")
        #expect(escaped != known)
        #expect(SnapshotReader.read(escaped, policy: resolve) == nil)
        #expect(try catalog.decoder().decode(Delivery.self, from: Data(escaped.utf8)) == pushed)
    }

    @Test("a snapshot with its flags spelled out and numbered policies reads the same as one without them")
    func spelledOutFlags() throws {
        let catalog = Self.catalog()
        let writer = SnapshotWriter(catalog: catalog)
        let pushed = try #require(try SnapshotWriterTests.deliveries().first { $0.plan?.policy == Fixture.otp && !$0.devices.isEmpty })
        let text = try writer.write(pushed)
        let spelled = text.replacingOccurrences(of: "\"state\"", with: "\"pushTerminated\":false,\"smsRequested\":false,\"state\"")
        #expect(spelled != text)
        #expect(SnapshotReader.read(spelled, policy: { catalog.policy(numbered: $0) }) == pushed)
    }
}
