import Testing
import TandemAPI
import TandemCore

/// `POST /api/push` bodies against cospace's documented patterns, at every boundary.
@Suite("cospace POST /api/push: the validation table")
struct CospacePushCodecTests {
    static let appID = "ABCDE12345.de.cospace.app"
    static let token = String(repeating: "a6", count: 32)

    static func decode(_ members: [(String, String)]) -> Result<CospacePushChange, CospacePushRefusal> {
        CospacePushCodec.decode(Array(("{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}").utf8))
    }

    static func quoted(_ text: String) -> String { JSONText.quoted(text) }

    static func gcm(_ id: String, action: String = "add") -> Result<CospacePushChange, CospacePushRefusal> {
        decode([("system", #""gcm""#), ("action", quoted(action)), ("registration_id", quoted(id))])
    }

    static func apnsAdd(token: String = token, appID: String = appID, topic: String? = nil,
                        sandbox: String? = nil) -> Result<CospacePushChange, CospacePushRefusal> {
        var members = [("system", #""apns""#), ("action", #""add""#), ("device_token", quoted(token)), ("application_id", quoted(appID))]
        if let topic { members.append(("apns_topic", quoted(topic))) }
        if let sandbox { members.append(("sandbox", sandbox)) }
        return decode(members)
    }

    static func field(_ result: Result<CospacePushChange, CospacePushRefusal>) -> String?? {
        if case .failure(.field(let name, _)) = result { return .some(name) }
        return .none
    }

    @Test("registration_id ^.{10,250}$: 10 and 250 characters pass, 9 and 251 do not", arguments: [
        (9, false), (10, true), (250, true), (251, false),
    ])
    func registrationIDLength(length: Int, passes: Bool) throws {
        let id = String(repeating: "x", count: length)
        for action in ["add", "delete"] {
            let result = Self.gcm(id, action: action)
            if passes {
                let token = try #require(PushToken(id))
                #expect(try result.get() == (action == "add" ? .add(.gcm(registrationID: token)) : .delete(token, .android)))
            } else {
                #expect(Self.field(result) == .some("registration_id"))
            }
        }
    }

    @Test("registration_id: characters, not bytes, are counted; a line feed is no `.`; spaces are refused all the same")
    func registrationIDCharacters() {
        #expect(CospacePatterns.isRegistrationID(String(repeating: "é", count: 10)))
        #expect(CospacePatterns.isRegistrationID(String(repeating: "é", count: 250)))
        #expect(!CospacePatterns.isRegistrationID(String(repeating: "é", count: 251)))
        #expect(!CospacePatterns.isRegistrationID("abcdefghij\n"))
        #expect(!CospacePatterns.isRegistrationID("abcde\nfghij"))
        #expect(CospacePatterns.isRegistrationID("abcde\tfghij"))
        // Matches the pattern, but no push service issues it: refused, naming the field.
        guard case .failure(.field("registration_id", let problem)) = Self.gcm("with a space") else {
            Issue.record("a registration id with spaces was accepted")
            return
        }
        #expect(problem.contains("printable ASCII"))
    }

    @Test("device_token ^[0-9a-fA-F]{64}$: 64 hex digits pass; 63, 65 and a non-hex one do not", arguments: [
        (String(repeating: "a", count: 63), false), (String(repeating: "a", count: 64), true),
        (String(repeating: "a", count: 65), false), (String(repeating: "a", count: 63) + "g", false),
        (String(repeating: "0123456789abcdef", count: 4), true), (String(repeating: "0123456789ABCDEF", count: 4), true),
        (String(repeating: "a", count: 63) + " ", false),
    ])
    func deviceToken(token: String, passes: Bool) throws {
        let added = Self.apnsAdd(token: token)
        let deleted = Self.decode([("system", #""apns""#), ("action", #""delete""#), ("device_token", Self.quoted(token))])
        #expect(CospacePatterns.isDeviceToken(token) == passes)
        if passes {
            let stored = try #require(PushToken(token.lowercased()))  // kept in lower case: one device, one registration
            #expect(try added.get() == .add(.apns(deviceToken: stored, applicationID: Self.appID, sandbox: nil, topic: nil)))
            #expect(try deleted.get() == .delete(stored, .iOS))
        } else {
            #expect(Self.field(added) == .some("device_token"))
            #expect(Self.field(deleted) == .some("device_token"))
        }
    }

    @Test("application_id ^[a-zA-Z0-9]{10}.[a-zA-Z0-9.-]{5,100}$ as written: the unescaped `.` takes any character but a line feed",
          arguments: [
        ("ABCDE12345.de.co", true),                                   // the shortest: bundle of 5
        ("ABCDE12345.de.c", false),                                   // bundle of 4
        ("ABCDE12345." + String(repeating: "a", count: 100), true),   // bundle of 100
        ("ABCDE12345." + String(repeating: "a", count: 101), false),  // bundle of 101
        ("ABCDE1234.de.cospace.app", false),                          // team of 9: its `.` is then the separator, "de" is team
        ("ABCDE12345Xde.cospace.app", true),                          // any separator
        ("ABCDE12345-de.cospace.app", true),
        ("ABCDE12345éde.cospace.app", true),
        ("ABCDE12345\nde.cospace.app", false),
        ("ABCDE-2345.de.cospace.app", false),                         // team not alphanumeric
        ("ABCDE12345.de_cospace.app", false),                         // `_` is not in the bundle class
        ("ABCDE12345.de.cospace.app\n", false),
        ("39JSDKGJ38.de.cospace.app", true),                          // the seed's
    ])
    func applicationID(id: String, passes: Bool) throws {
        #expect(CospacePatterns.isApplicationID(id) == passes)
        let result = Self.apnsAdd(appID: id)
        if passes {
            #expect(try result.get() == .add(.apns(deviceToken: PushToken(Self.token)!, applicationID: id, sandbox: nil, topic: nil)))
        } else {
            #expect(result == .failure(.invalidApplicationID))
            #expect(CospacePushRefusal.invalidApplicationID.document.compactText == #"{"status":"invalid-appid"}"#)
        }
    }

    @Test("apns_topic ^[a-zA-Z0-9.-]{5,100}$: 5 and 100 characters pass, 4 and 101 do not", arguments: [
        (String(repeating: "a", count: 4), false), (String(repeating: "a", count: 5), true),
        (String(repeating: "a", count: 100), true), (String(repeating: "a", count: 101), false),
        ("de.cospace.app.voip", true), ("de.cospace_app", false), ("de.cospace.äpp", false),
    ])
    func topic(topic: String, passes: Bool) throws {
        let result = Self.apnsAdd(topic: topic)
        if passes {
            #expect(try result.get() == .add(.apns(deviceToken: PushToken(Self.token)!, applicationID: Self.appID, sandbox: nil, topic: topic)))
        } else {
            #expect(result == .failure(.invalidAPNsTopic))
            #expect(CospacePushRefusal.invalidAPNsTopic.document.compactText == #"{"status":"invalid-apns-topic"}"#)
        }
    }

    @Test("sandbox is a boolean of APNs add", arguments: [("true", true), ("false", false)])
    func sandbox(text: String, value: Bool) throws {
        #expect(try Self.apnsAdd(sandbox: text).get()
                == .add(.apns(deviceToken: PushToken(Self.token)!, applicationID: Self.appID, sandbox: value, topic: nil)))
    }

    @Test("the unknown-appid answer is the documented status")
    func unknownAppID() {
        #expect(CospacePushRefusal.unknownApplicationID.document.compactText == #"{"status":"unknown-appid"}"#)
        #expect(CospacePatterns.bundleID(ofApplicationID: "39JSDKGJ38.de.cospace.app") == "de.cospace.app")
        #expect(CospacePatterns.teamID(ofApplicationID: "39JSDKGJ38.de.cospace.app") == "39JSDKGJ38")
        #expect(CospacePatterns.bundleID(ofApplicationID: "39JSDKGJ38éde.cospace.app") == "de.cospace.app")
    }

    @Test("missing, misplaced and mistyped fields are 400 naming the field", arguments: [
        (#"{"action":"add","registration_id":"0123456789"}"#, "system"),
        (#"{"system":"gcm","registration_id":"0123456789"}"#, "action"),
        (#"{"system":"GCM","action":"add","registration_id":"0123456789"}"#, "system"),
        (#"{"system":"gcm","action":"remove","registration_id":"0123456789"}"#, "action"),
        (#"{"system":1,"action":"add"}"#, "system"),
        (#"{"system":"gcm","action":"add"}"#, "registration_id"),
        (#"{"system":"gcm","action":"delete"}"#, "registration_id"),
        (#"{"system":"gcm","action":"add","registration_id":1234567890}"#, "registration_id"),
        (#"{"system":"gcm","action":"add","registration_id":null}"#, "registration_id"),
        (#"{"system":"gcm","action":"add","registration_id":"0123456789","device_token":"aa"}"#, "device_token"),
        (#"{"system":"gcm","action":"add","registration_id":"0123456789","sandbox":true}"#, "sandbox"),
        (#"{"system":"gcm","action":"add","registration_id":"0123456789","application_id":"ABCDE12345.de.co"}"#, "application_id"),
        (#"{"system":"gcm","action":"add","registration_id":"0123456789","apns_topic":"de.cospace"}"#, "apns_topic"),
        (#"{"system":"apns","action":"add","application_id":"ABCDE12345.de.co"}"#, "device_token"),
        (#"{"system":"apns","action":"add","device_token":"\#(token)"}"#, "application_id"),
        (#"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"ABCDE12345.de.co","registration_id":"0123456789"}"#, "registration_id"),
        (#"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"ABCDE12345.de.co","sandbox":"true"}"#, "sandbox"),
        (#"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"ABCDE12345.de.co","sandbox":null}"#, "sandbox"),
        (#"{"system":"apns","action":"add","device_token":"\#(token)","application_id":5}"#, "application_id"),
        (#"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"ABCDE12345.de.co","apns_topic":5}"#, "apns_topic"),
        (#"{"system":"apns","action":"delete"}"#, "device_token"),
        (#"{"system":"apns","action":"delete","device_token":"\#(token)","sandbox":true}"#, "sandbox"),
        (#"{"system":"apns","action":"delete","device_token":"\#(token)","application_id":"ABCDE12345.de.co"}"#, "application_id"),
        (#"{"system":"apns","action":"delete","device_token":"\#(token)","apns_topic":"de.cospace"}"#, "apns_topic"),
        (#"{"system":"apns","action":"delete","device_token":"\#(token)","registration_id":"0123456789"}"#, "registration_id"),
        (#"{"system":"apns","action":"delete","device_token":"\#(token)","extra":1}"#, "extra"),
        (#"{"system":"apns","action":"delete","device_token":"\#(token)","device_token":"\#(token)"}"#, "device_token"),
    ])
    func fieldErrors(body: String, field: String) {
        let result = CospacePushCodec.decode(Array(body.utf8))
        #expect(Self.field(result) == .some(field), "\(result)")
        if case .failure(let refusal) = result, case .object(let members) = refusal.document {
            #expect(members.map(\.key) == ["error", "field"])
        }
    }

    @Test("a body that is not one JSON object is 400 without a field", arguments: ["", "[]", "{", #""gcm""#, "{} {}"])
    func notAnObject(body: String) {
        #expect(Self.field(CospacePushCodec.decode(Array(body.utf8))) == .some(nil))
    }

    @Test("the syntax statuses come after the field checks: a misplaced field wins over a bad application id")
    func order() {
        let body = #"{"system":"apns","action":"add","device_token":"\#(Self.token)","application_id":"bad","extra":1}"#
        #expect(Self.field(CospacePushCodec.decode(Array(body.utf8))) == .some("extra"))
        let bothBad = #"{"system":"apns","action":"add","device_token":"\#(Self.token)","application_id":"bad","apns_topic":"x"}"#
        #expect(CospacePushCodec.decode(Array(bothBad.utf8)) == .failure(.invalidApplicationID))
    }
}
