import Testing
import TandemCore
@testable import TandemAPI

/// ``BWMICodec``: every endpoint's good bodies, each bad one with its message, and the exact answer shapes.
@Suite("BWMI codec")
struct BWMICodecTests {
    static let iosToken = "d7a9876f73f84725914a11a25b89c3769f213d453b62ec7d38d241b2fc10a8445"  // the spec's: 65 characters

    private func problem(_ body: () throws(BWMICodec.Problem) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return error.message
        }
    }

    @Test("PUT /devices: the spec's iOS and Android bodies (the iOS token has 65 characters)")
    func deviceBodies() throws {
        let ios = try BWMICodec.device(Array("""
            {"deviceId":"\(Self.iosToken)","type":"IOS","user":{"phone":"+19883999901","email":"abc@yahoo.com"}}
            """.utf8))
        #expect(ios == BWMICodec.DeviceBody(token: PushToken(Self.iosToken)!, platform: .iOS, phone: MSISDN("+19883999901"),
                                            email: "abc@yahoo.com"))
        let android = try BWMICodec.device(Array(#"{"deviceId":"GPA91bEthw8-_x","type":"ANDROID","user":{"phone":"0019883999901"},"extra":1}"#.utf8))
        #expect(android == BWMICodec.DeviceBody(token: PushToken("GPA91bEthw8-_x")!, platform: .android,
                                                phone: MSISDN("+19883999901"), email: nil))
        let bare = try BWMICodec.device(Array(#"{"deviceId":"tok","type":"android"}"#.utf8))
        #expect(bare.phone == nil && bare.email == nil && bare.platform == .android)
    }

    @Test("PUT /devices: each bad body is a 400 naming the problem", arguments: [
        ("{", "the body is not valid JSON"),
        ("[]", "the body must be a JSON object, not an array"),
        (#"{"type":"IOS"}"#, "deviceId is required"),
        (#"{"deviceId":5,"type":"IOS"}"#, "deviceId must be a string"),
        (#"{"deviceId":"t"}"#, "type is required (IOS or ANDROID)"),
        (#"{"deviceId":"t","type":"WINDOWS"}"#, #"type must be IOS or ANDROID, not "WINDOWS""#),
        (#"{"deviceId":"has space","type":"IOS"}"#, "deviceId must be 1 to 200 printable ASCII characters without spaces for IOS"),
        (#"{"deviceId":"t","type":"IOS","user":"x"}"#, "user must be an object, not a string"),
        (#"{"deviceId":"t","type":"IOS","user":{"phone":"12"}}"#, "user.phone must be an international number with its country code, like +19883999901"),
        (#"{"deviceId":"t","type":"IOS","user":{"email":"nobody"}}"#, "user.email must be an email address (name@domain, at most 254 characters)"),
    ])
    func badDeviceBodies(body: String, message: String) {
        let found = problem { () throws(BWMICodec.Problem) in _ = try BWMICodec.device(Array(body.utf8)) }
        #expect(found?.hasPrefix(message) == true, "\(body): \(found ?? "accepted")")
    }

    @Test("token length: at most 200 for IOS, 1,024 for ANDROID")
    func tokenLength() {
        let long = String(repeating: "a", count: 201)
        #expect(problem { () throws(BWMICodec.Problem) in _ = try BWMICodec.device(Array(#"{"deviceId":"\#(long)","type":"IOS"}"#.utf8)) } != nil)
        #expect(problem { () throws(BWMICodec.Problem) in _ = try BWMICodec.device(Array(#"{"deviceId":"\#(long)","type":"ANDROID"}"#.utf8)) } == nil)
    }

    @Test("PUT /acks: the spec's body; bid optional; each bad body named", arguments: [
        (#"{"did":"t"}"#, "nid is required"),
        (#"{"nid":"","did":"t"}"#, "nid must be a non-empty string"),
        (#"{"nid":"1"}"#, "did is required"),
        (#"{"nid":"1","did":"a b"}"#, "did must be the device token"),
        (#"{"nid":"1","did":"t","bid":3}"#, "bid must be a string, not a number"),
    ])
    func acks(body: String, message: String) throws {
        let ack = try BWMICodec.ack(Array(#"{"nid":"42","did":"tok","bid":"GATE"}"#.utf8))
        #expect(ack == BWMICodec.Ack(nid: "42", device: PushToken("tok")!, bid: "GATE"))
        let found = problem { () throws(BWMICodec.Problem) in _ = try BWMICodec.ack(Array(body.utf8)) }
        #expect(found?.hasPrefix(message) == true, "\(body): \(found ?? "accepted")")
    }

    @Test("POST notifications: managed and fire-and-forget bodies")
    func notifications() throws {
        let managed = try BWMICodec.notification(Array("""
            {"to":[{"deviceId":"tok"},{"phone":"+19883999901"},{"email":"a@b.c"}],"text":"Cash withdrawal","bid":"TX",
             "faf":false,"options":{"messageType":"Critical"}}
            """.utf8))
        #expect(managed == BWMICodec.Notification(targets: [.device(PushToken("tok")!), .phone(MSISDN("+19883999901")!), .email("a@b.c")],
                                                  text: "Cash withdrawal", bid: "TX", fireAndForget: false, badge: nil, sound: nil,
                                                  messageType: .critical))
        let faf = try BWMICodec.notification(Array(#"{"to":[{"deviceId":"t"}],"text":"Salary","faf":true,"sound":"default","badge":1}"#.utf8))
        #expect((faf.fireAndForget, faf.badge, faf.sound, faf.messageType) == (true, 1, "default", nil))
    }

    @Test("POST notifications: each bad body named", arguments: [
        (#"{"text":"x","faf":true}"#, "to is required"),
        (#"{"to":[],"text":"x","faf":true}"#, "to must be a non-empty list"),
        (#"{"to":[{"user":"x"}],"text":"x","faf":true}"#, "to[0] must be one of"),
        (#"{"to":[{"phone":"1"}],"text":"x","faf":true}"#, "to[0].phone must be an international number"),
        (#"{"to":[{"deviceId":"t"}],"faf":true}"#, "text is required"),
        (#"{"to":[{"deviceId":"t"}],"text":"x"}"#, "faf is required"),
        (#"{"to":[{"deviceId":"t"}],"text":"x","faf":"false"}"#, "faf must be true or false"),
        (#"{"to":[{"deviceId":"t"}],"text":"x","faf":false,"badge":3}"#, "badge is stamped per device"),
        (#"{"to":[{"deviceId":"t"}],"text":"x","faf":true,"badge":-1}"#, "badge must be a whole number"),
        (#"{"to":[{"deviceId":"t"}],"text":"x","faf":true,"options":{"messageType":"Urgent"}}"#, "options.messageType must be"),
        (#"{"to":[{"deviceId":"t"}],"text":"x","faf":true,"priority":1}"#, #"unknown field "priority""#),
    ])
    func badNotifications(body: String, message: String) {
        let found = problem { () throws(BWMICodec.Problem) in _ = try BWMICodec.notification(Array(body.utf8)) }
        #expect(found?.hasPrefix(message) == true, "\(body): \(found ?? "accepted")")
    }

    @Test("answers: pending as the spec's ns arrays (bid left out when none), sends, errors")
    func answers() {
        let device = DeviceID(GUID("00000000-0000-0000-0000-000000000001")!)
        let pending = BWMICodec.pending([
            BWMINotification(delivery: DeliveryKey(7), device: device, text: "Boarding \"B67\"", bid: "GATE_CHANGE",
                             sentAt: Timestamp(milliseconds: 1_365_753_980_483), expiresAt: Timestamp(milliseconds: 2_000_000_000_000)),
            BWMINotification(delivery: DeliveryKey(9), device: device, text: "Alert", bid: nil,
                             sentAt: Timestamp(milliseconds: 1_365_753_981_820), expiresAt: Timestamp(milliseconds: 2_000_000_000_000)),
        ])
        #expect(String(decoding: pending, as: UTF8.self)
                == #"{"ns":[["7","1365753980483","Boarding \"B67\"","GATE_CHANGE"],["9","1365753981820","Alert"]]}"#)
        #expect(String(decoding: BWMICodec.pending([]), as: UTF8.self) == #"{"ns":[]}"#)
        let sent = BWMICodec.sent([BWMICodec.Sent(token: PushToken("tok")!, nid: DeliveryKey(7), badge: 2)],
                                  unreached: [BWMICodec.Unreached(target: .phone(MSISDN("+19883999901")!), reason: "no device of this app")])
        #expect(String(decoding: sent, as: UTF8.self)
                == #"{"notifications":[{"deviceId":"tok","nid":"7","badge":2}],"unreached":[{"to":{"phone":"+19883999901"},"error":"no device of this app"}]}"#)
        #expect(String(decoding: BWMICodec.error("nid is required"), as: UTF8.self) == #"{"error":"nid is required"}"#)
    }
}
