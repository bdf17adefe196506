import Synchronization
import Testing
import TandemCore
@testable import TandemProviders

@Suite("Platform push sender")
struct PushPlatformSenderTests {
    /// Answers every target it gets with `verdict`, plus one for a device it was not given.
    final class Recorder: PushSender {
        let verdict: PushVerdict
        private let received = Mutex<[[PushTarget]]>([])
        init(_ verdict: PushVerdict) { self.verdict = verdict }
        func send(_ push: PushRequest) async -> [DeviceID: PushVerdict] {
            received.withLock { $0.append(push.targets) }
            var verdicts = Dictionary(uniqueKeysWithValues: push.targets.map { ($0.deviceID, verdict) })
            verdicts[DeviceID(testGUID())] = .accepted
            return verdicts
        }
        var calls: [[PushTarget]] { received.withLock { $0 } }
    }

    private func target(_ platform: Platform) -> PushTarget {
        PushTarget(deviceID: DeviceID(testGUID()), platform: platform, token: PushToken("token")!)
    }

    private func push(_ targets: [PushTarget]) -> PushRequest {
        PushRequest(key: DeliveryKey(9), recipient: .msisdn(MSISDN("+31612345678")!), targets: targets, policy: .specOTP,
                    content: MessageContent(messageID: testGUID(), sender: "Tandem", body: "hi", reference: nil))
    }

    @Test("iOS goes to APNs, Android to FCM, Windows Phone nowhere; verdicts are merged")
    func split() async {
        let apns = Recorder(.accepted)
        let fcm = Recorder(.rejected(.tokenDead))
        let sender = PlatformPushSender(apns: apns, fcm: fcm, logger: .discarding)
        let (phone, android1, android2, windows) = (target(.iOS), target(.android), target(.android), target(.windowsPhone))
        let verdicts = await sender.send(push([phone, android1, windows, android2]))
        #expect(verdicts == [phone.deviceID: .accepted, android1.deviceID: .rejected(.tokenDead),
                             android2.deviceID: .rejected(.tokenDead), windows.deviceID: .rejected(.other)])
        #expect(apns.calls == [[phone]])
        #expect(fcm.calls == [[android1, android2]])
    }

    @Test("a platform without a configured provider is rejected; an empty side is not called")
    func missingProvider() async {
        let fcm = Recorder(.accepted)
        let sender = PlatformPushSender(apns: nil, fcm: fcm, logger: .discarding)
        let phone = target(.iOS)
        #expect(await sender.send(push([phone])) == [phone.deviceID: .rejected(.other)])
        #expect(fcm.calls.isEmpty)
    }
}
