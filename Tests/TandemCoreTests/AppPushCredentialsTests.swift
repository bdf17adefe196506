import Foundation
import Testing
@testable import TandemCore

@Suite("App push credentials")
struct AppPushCredentialsTests {
    static let apns = APNsCredentials(keySource: .file("/etc/tandem/AuthKey_ABC123DEFG.p8"), keyID: "ABC123DEFG",
                                      teamID: "DEF123GHIJ", topic: "com.acme.app", sandbox: true)
    static let fcm = FCMCredentials(serviceAccountPath: "/etc/tandem/acme-firebase.json")

    private func encoded(_ credentials: AppPushCredentials) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(credentials), as: UTF8.self)
    }

    private func decoded(_ json: String) throws -> AppPushCredentials {
        try JSONDecoder().decode(AppPushCredentials.self, from: Data(json.utf8))
    }

    /// The problem text a refused document decodes to, as the store reports it.
    private func problem(_ json: String) -> String? {
        do {
            _ = try decoded(json)
            return nil
        } catch let error as DecodingError {
            return ConfigurationError(file: "stored", decodingError: error).description
        } catch {
            return "\(error)"
        }
    }

    @Test("both platforms encode with stable explicit keys and decode back equal")
    func roundTrip() throws {
        let credentials = AppPushCredentials(apns: Self.apns, fcm: Self.fcm)
        let json = try encoded(credentials)
        #expect(json == #"{"apns":{"keyFile":"/etc/tandem/AuthKey_ABC123DEFG.p8","keyId":"ABC123DEFG","#
            + #""sandbox":true,"teamId":"DEF123GHIJ","topic":"com.acme.app"},"#
            + #""fcm":{"serviceAccountFile":"/etc/tandem/acme-firebase.json"}}"#)
        #expect(try decoded(json) == credentials)
    }

    @Test("a key in an environment variable is stored by the variable's name only")
    func environmentKey() throws {
        var apns = Self.apns
        apns.keySource = .environment("ACME_APNS_KEY")
        let credentials = AppPushCredentials(apns: apns)
        let json = try encoded(credentials)
        #expect(json.contains(#""keyEnv":"ACME_APNS_KEY""#))
        #expect(!json.contains("keyFile") && !json.contains("fcm"))
        #expect(try decoded(json) == credentials)
    }

    @Test("empty credentials encode as an empty object; absent and null platforms decode as not set")
    func empty() throws {
        #expect(AppPushCredentials().isEmpty)
        #expect(try encoded(AppPushCredentials()) == "{}")
        #expect(try decoded(#"{"apns":null}"#) == AppPushCredentials())
        #expect(try decoded(#"{"fcm":{"serviceAccountFile":"/x.json"}}"#).apns == nil)
        #expect(try decoded(#"{"apns":{"keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}}"#).apns?.sandbox == false)
    }

    @Test("stored documents with unknown keys, both or no key source, or invalid values are refused", arguments: [
        (#"{"apns":null,"hms":{}}"#, "stored: hms: unknown key"),
        (#"{"apns":{"keyFile":"/k.p8","keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}}"#,
         "stored: apns.keyEnv: give either keyFile or keyEnv, not both"),
        (#"{"apns":{"keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}}"#, "stored: apns.keyFile: keyFile or keyEnv is required"),
        (#"{"apns":{"keyFile":"/k.p8","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t","key":"x"}}"#,
         "stored: apns.key: unknown key"),
        (#"{"apns":{"keyFile":"k.p8","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}}"#,
         "stored: apns.keyFile: the APNs key file must be an absolute path"),
        (#"{"apns":{"keyFile":"/k.p8","keyId":"ABC123","teamId":"DEF123GHIJ","topic":"t"}}"#,
         "stored: apns.keyId: the APNs key ID must be 10 letters or digits"),
        (#"{"fcm":{"serviceAccountFile":""}}"#, "stored: fcm.serviceAccountFile: the FCM service-account file must be an absolute path"),
    ])
    func refused(json: String, expected: String) {
        let text = problem(json)
        #expect(text?.hasPrefix(expected) == true, "\(text ?? "decoded")")
    }

    @Test("valid credentials pass validation")
    func valid() throws {
        try AppPushCredentials(apns: Self.apns, fcm: Self.fcm).validate()
        var apns = Self.apns
        apns.keySource = .environment("_APNS_KEY_2")
        apns.topic = "com.acme.app.voip"
        try apns.validate()
    }

    @Test("each field is checked, and the error names the field and the value", arguments: [
        (APNsCredentials(keySource: .file("AuthKey.p8"), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: "a"),
         PushCredentialsError.keyFile("AuthKey.p8")),
        (APNsCredentials(keySource: .file("/etc/a\nb.p8"), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: "a"),
         .keyFile("/etc/a\nb.p8")),
        (APNsCredentials(keySource: .environment("1KEY"), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: "a"),
         .keyEnvironmentVariable("1KEY")),
        (APNsCredentials(keySource: .environment("APNS-KEY"), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: "a"),
         .keyEnvironmentVariable("APNS-KEY")),
        (APNsCredentials(keySource: .environment(""), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: "a"),
         .keyEnvironmentVariable("")),
        (APNsCredentials(keySource: .file("/k.p8"), keyID: "ABC123DEF", teamID: "DEF123GHIJ", topic: "a"), .keyID("ABC123DEF")),
        (APNsCredentials(keySource: .file("/k.p8"), keyID: "ABC123DEFGH", teamID: "DEF123GHIJ", topic: "a"), .keyID("ABC123DEFGH")),
        (APNsCredentials(keySource: .file("/k.p8"), keyID: "ABC-123DEF", teamID: "DEF123GHIJ", topic: "a"), .keyID("ABC-123DEF")),
        (APNsCredentials(keySource: .file("/k.p8"), keyID: "ABC123DEFG", teamID: "DEF123GHIÄ", topic: "a"), .teamID("DEF123GHIÄ")),
        (APNsCredentials(keySource: .file("/k.p8"), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: ""), .topic("")),
        (APNsCredentials(keySource: .file("/k.p8"), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: "com.acme app"),
         .topic("com.acme app")),
    ])
    func invalid(apns: APNsCredentials, expected: PushCredentialsError) {
        #expect(throws: expected) { try apns.validate() }
    }

    @Test("messages are sentences that quote the value")
    func messages() {
        #expect(PushCredentialsError.keyID("abc").description
            == #"the APNs key ID must be 10 letters or digits (Apple shows it next to the key), got "abc""#)
        #expect(PushCredentialsError.keyFile("/a\nb").description.hasSuffix(#"got "/a\nb""#))
        #expect(PushCredentialsError.serviceAccountFile("x").key == "serviceAccountFile")
        #expect(PushCredentialsError.keyEnvironmentVariable("x").key == "keyEnv")
        #expect(throws: PushCredentialsError.serviceAccountFile("relative.json")) {
            try FCMCredentials(serviceAccountPath: "relative.json").validate()
        }
    }
}
