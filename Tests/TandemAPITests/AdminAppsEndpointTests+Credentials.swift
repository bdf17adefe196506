import Foundation
import Testing
import TandemCore
import TandemHTTP
@testable import TandemAPI

/// An app's push credentials and default type through the admin API.
extension AdminAppsEndpointTests {
    @Test("APNs credentials are set from a key file or an environment variable, and shown back without the secret")
    func apns() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let (_, keyText, secret) = try await provision(admin)
        let file = try await send(admin, .PUT, "/admin/apps/\(keyText)/apns", #"""
            {"keyFile":"\#(Self.keyFile)","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"com.acme.app","sandbox":true}
            """#)
        #expect(file.status == .ok)
        #expect(text(file).contains(#""apns":{"keyFile":"/etc/tandem/AuthKey_ABC123DEFG.p8","keyId":"ABC123DEFG","#
            + #""teamId":"DEF123GHIJ","topic":"com.acme.app","sandbox":true}"#))
        #expect(!text(file).contains(secret))

        let fcm = try await send(admin, .PUT, "/admin/apps/\(keyText)/fcm", #"{"serviceAccountFile":"\#(Self.serviceAccount)"}"#)
        #expect(fcm.status == .ok)
        let environment = try await send(admin, .PUT, "/admin/apps/\(keyText)/apns",
                                         #"{"keyEnv":"ACME_APNS_KEY","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"com.acme.app"}"#)
        #expect(environment.status == .ok)
        let key = try #require(AppKey(keyText))
        let stored = try #require(try registry.appDetails(key: key))
        #expect(stored.pushCredentials == AppPushCredentials(
            apns: APNsCredentials(keySource: .environment("ACME_APNS_KEY"), keyID: "ABC123DEFG", teamID: "DEF123GHIJ",
                                  topic: "com.acme.app", sandbox: false),
            fcm: FCMCredentials(serviceAccountPath: Self.serviceAccount)))
        #expect(text(environment).contains(#""fcm":{"serviceAccountFile":"/etc/tandem/acme-firebase.json"}"#))
    }

    @Test("APNs bodies that do not describe valid credentials are 400 and change nothing", arguments: [
        (#"{"keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}"#, #""keyFile" (a .p8 file on the server) or "keyEnv""#),
        (#"{"keyFile":"/etc/tandem/AuthKey_ABC123DEFG.p8","keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}"#,
         #"give either "keyFile" or "keyEnv", not both"#),
        (#"{"keyEnv":"K","teamId":"DEF123GHIJ","topic":"t"}"#, #""keyId" is required"#),
        (#"{"keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF123GHIJ"}"#, #""topic" is required"#),
        (#"{"keyEnv":"K","keyId":"ABC123","teamId":"DEF123GHIJ","topic":"t"}"#, "the APNs key ID must be 10 letters or digits"),
        (#"{"keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF 123GHI","topic":"t"}"#, "the APNs team ID must be 10 letters or digits"),
        (#"{"keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":""}"#, "the APNs topic must be the app's bundle ID"),
        (#"{"keyEnv":"MY-KEY","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}"#,
         "the APNs key environment variable must be a name of letters"),
        (#"{"keyFile":"AuthKey.p8","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}"#,
         "the APNs key file must be an absolute path"),
        (#"{"keyFile":"/etc/tandem/missing.p8","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}"#,
         "no file at /etc/tandem/missing.p8: the APNs key file (.p8) must exist on the server"),
        (#"{"keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t","sandbox":"yes"}"#,
         #""sandbox" must be true or false, not a string"#),
        (#"{"keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t","key":"-----BEGIN PRIVATE KEY-----"}"#,
         #"unknown key "key""#),
        (#"{"keyEnv":"K","keyID":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}"#, #"unknown key "keyID""#),
    ])
    func apnsErrors(body: String, expected: String) async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let (_, keyText, _) = try await provision(admin)
        let response = try await send(admin, .PUT, "/admin/apps/\(keyText)/apns", body)
        #expect(response.status == .badRequest)
        #expect(try error(response).hasPrefix(expected), "\(text(response))")
        #expect(try registry.apps().first?.pushCredentials == AppPushCredentials())
    }

    @Test("FCM and type changes validate their one field; unknown apps are 404")
    func fcmAndType() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let (_, keyText, _) = try await provision(admin)
        let cases: [(String, String, HTTPStatus, String)] = [
            ("fcm", #"{"serviceAccountFile":"relative.json"}"#, .badRequest, "the FCM service-account file must be an absolute path"),
            ("fcm", #"{"serviceAccountFile":"/etc/tandem/other.json"}"#, .badRequest,
             "no file at /etc/tandem/other.json: the FCM service-account file must exist on the server"),
            ("fcm", #"{}"#, .badRequest, #""serviceAccountFile" is required"#),
            ("type", #"{"defaultMessageType":"Urgent"}"#, .badRequest, #""defaultMessageType" must be Default, OTP or Critical"#),
            ("type", #"{"defaultMessageType":true}"#, .badRequest, #""defaultMessageType" must be a string, not a boolean"#),
            ("type", #"{}"#, .badRequest, #""defaultMessageType" is required"#),
        ]
        for (route, body, status, message) in cases {
            let response = try await send(admin, .PUT, "/admin/apps/\(keyText)/\(route)", body)
            #expect(response.status == status, "\(route) \(body)")
            #expect(try error(response).hasPrefix(message), "\(text(response))")
        }
        let type = try await send(admin, .PUT, "/admin/apps/\(keyText)/type", #"{"defaultMessageType":"critical"}"#)
        #expect(type.status == .ok)
        #expect(try json(type)["defaultMessageType"] as? String == "Critical")
        let unknown = "/admin/apps/00000000-0000-4000-8000-000000000009"
        for (route, body) in [("type", #"{"defaultMessageType":"OTP"}"#), ("fcm", #"{"serviceAccountFile":"\#(Self.serviceAccount)"}"#),
                              ("apns", #"{"keyEnv":"K","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"t"}"#)] {
            let response = try await send(admin, .PUT, "\(unknown)/\(route)", body)
            #expect(response.status == .notFound, "\(route)")
            #expect(try error(response) == "no app has key 00000000-0000-4000-8000-000000000009")
        }
    }
}
