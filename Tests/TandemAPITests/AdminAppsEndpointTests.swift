import Foundation
import Synchronization
import Testing
import TandemCore
import TandemHTTP
import TandemStore
@testable import TandemAPI

@Suite("Admin apps endpoint")
struct AdminAppsEndpointTests {
    static let token = "s3same-admin-token"
    static let keyFile = "/etc/tandem/AuthKey_ABC123DEFG.p8"
    static let serviceAccount = "/etc/tandem/acme-firebase.json"
    static let t0 = Timestamp(milliseconds: 1_790_000_000_000)

    func endpoint(_ registry: any AppRegistry, token: String? = Self.token,
                          logger: Logger = .discarding) -> AdminAppsEndpoint {
        AdminAppsEndpoint(registry: registry, adminToken: token, now: { Self.t0 },
                          isRegularFile: { [Self.keyFile, Self.serviceAccount].contains($0) }, logger: logger)
    }

    /// Routes `method target` as the server would (path parameters included) and runs the handler.
    func send(_ endpoint: AdminAppsEndpoint, _ method: HTTPMethod, _ target: String, _ body: String = "",
                      authorization: String? = "Bearer " + token) async throws -> Response {
        var router = HTTPRouter()
        endpoint.register(in: &router)
        guard case .matched(_, let handler, let parameters) = router.match(method, path: target) else {
            throw RoutingFailure(target: target)
        }
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        let request = Request(method: method, target: target, headers: headers, body: Array(body.utf8), pathParameters: parameters)
        switch handler {
        case .sync(let respond): return respond(request)
        case .async(let respond): return await respond(request)
        case .deferred(let respond): return await withCheckedContinuation { done in respond(request, Responder { done.resume(returning: $0) }) }
        }
    }

    private struct RoutingFailure: Error { let target: String }

    func json(_ response: Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func error(_ response: Response) throws -> String {
        try #require(try json(response)["error"] as? String)
    }

    func text(_ response: Response) -> String { String(decoding: response.body, as: UTF8.self) }

    /// An account (through the API) and an OTP app under it; returns the product token, app key and secret.
    func provision(_ endpoint: AdminAppsEndpoint) async throws -> (token: String, key: String, secret: String) {
        let account = try await send(endpoint, .POST, "/admin/accounts", #"{"name":"Acme B.V."}"#)
        #expect(account.status == .created)
        let token = try #require(try json(account)["productToken"] as? String)
        let app = try await send(endpoint, .POST, "/admin/apps",
                                 #"{"name":"Acme App","account":"\#(token)","defaultMessageType":"otp"}"#)
        #expect(app.status == .created)
        let document = try json(app)
        return (token, try #require(document["appKey"] as? String), try #require(document["appSecret"] as? String))
    }

    static let routes: [(HTTPMethod, String)] = [
        (.GET, "/admin/accounts"), (.POST, "/admin/accounts"), (.GET, "/admin/apps"), (.POST, "/admin/apps"),
        (.GET, "/admin/apps/00000000-0000-4000-8000-000000000001"),
        (.POST, "/admin/apps/00000000-0000-4000-8000-000000000001/rotate-secret"),
        (.PUT, "/admin/apps/00000000-0000-4000-8000-000000000001/apns"),
        (.PUT, "/admin/apps/00000000-0000-4000-8000-000000000001/fcm"),
        (.PUT, "/admin/apps/00000000-0000-4000-8000-000000000001/type"),
        (.PUT, "/admin/apps/00000000-0000-4000-8000-000000000001/sms-protection"),
        (.GET, "/admin/apps/00000000-0000-4000-8000-000000000001/sms-blocks"),
        (.DELETE, "/admin/apps/00000000-0000-4000-8000-000000000001/sms-blocks/+3161234"),
        (.PUT, "/admin/accounts/00000000-0000-4000-8000-000000000002/sms-countries"),
    ]

    // MARK: - Authorization

    @Test("without an admin token every route is 403 and says how to turn the API on", arguments: routes)
    func disabled(method: HTTPMethod, target: String) async throws {
        for token in [nil, ""] as [String?] {
            let response = try await send(endpoint(InMemoryAppRegistry(), token: token), method, target, #"{"name":"x"}"#)
            #expect(response.status == .forbidden)
            #expect(text(response) == #"{"error":"the admin API is disabled: set TANDEM_ADMIN_TOKEN"}"#)
            #expect(response.headers["content-type"] == "application/json")
        }
    }

    @Test("a missing or wrong token is 401 with a Bearer challenge on every route, and nothing is done",
          arguments: [nil, "Bearer nope", "Basic czNzYW1lLWFkbWluLXRva2Vu", "Bearer s3same-admin-toke",
                      "Bearer s3same-admin-token2", "Bearer ", "s3same-admin-token"])
    func refused(authorization: String?) async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        for (method, target) in Self.routes {
            let response = try await send(admin, method, target, #"{"name":"Acme"}"#, authorization: authorization)
            #expect(response.status == .unauthorized, "\(method) \(target)")
            #expect(response.headers["www-authenticate"] == #"Bearer realm="admin""#)
            #expect(try error(response) == "a valid admin bearer token is required")
        }
        #expect(try registry.accounts().isEmpty)
    }

    @Test("the right token is accepted with any scheme casing")
    func accepted() async throws {
        let admin = endpoint(InMemoryAppRegistry())
        for authorization in ["Bearer \(Self.token)", "bearer \(Self.token)", "BEARER  \(Self.token) "] {
            let response = try await send(admin, .GET, "/admin/apps", authorization: authorization)
            #expect(response.status == .ok, "\(authorization)")
            #expect(text(response) == #"{"apps":[]}"#)
            #expect(response.headers["cache-control"] == "no-store")
        }
    }

    // MARK: - Accounts

    @Test("creating an account shows its product token once; the list masks it")
    func accounts() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let created = try await send(admin, .POST, "/admin/accounts", #"{"name":"  Acme B.V. "}"#)
        #expect(created.status == .created)
        let document = try json(created)
        let tokenText = try #require(document["productToken"] as? String)
        let token = try #require(ProductToken(tokenText))
        #expect(document["name"] as? String == "Acme B.V.")
        #expect(document["createdAt"] as? String == "2026-09-21T14:13:20.000Z")
        #expect(try registry.accounts().map(\.productToken) == [token])

        let list = try await send(admin, .GET, "/admin/accounts")
        #expect(list.status == .ok)
        #expect(text(list) == #"{"accounts":[{"name":"Acme B.V.","productToken":"\#(token.text.prefix(8))-****","#
            + #""disabled":false,"smsCountries":{"mode":"enforce"},"createdAt":"2026-09-21T14:13:20.000Z"}]}"#)
        #expect(!text(list).contains(token.text))
    }

    @Test("account bodies are strict", arguments: [
        ("", "the body must be a JSON object"),
        ("[]", "the body must be a JSON object, not an array"),
        (#""Acme""#, "the body must be a JSON object, not a string"),
        (#"{"name":"Acme",}"#, "the body is not valid JSON"),
        (#"{}"#, #""name" is required"#),
        (#"{"name":null}"#, #""name" is required"#),
        (#"{"name":42}"#, #""name" must be a string, not a number"#),
        (#"{"name":"   "}"#, #""name" must be 1 to 100 printable characters"#),
        (#"{"name":"Acme","token":"x"}"#, #"unknown key "token": expected "name""#),
        (#"{"name":"Acme","name":"Other"}"#, #"key "name" is given twice"#),
        (#"{"Name":"Acme"}"#, #"unknown key "Name""#),
    ])
    func accountErrors(body: String, expected: String) async throws {
        let registry = InMemoryAppRegistry()
        let response = try await send(endpoint(registry), .POST, "/admin/accounts", body)
        #expect(response.status == .badRequest)
        #expect(try error(response).hasPrefix(expected), "\(text(response))")
        #expect(try registry.accounts().isEmpty)
    }

    // MARK: - Apps

    @Test("creating an app returns its key and secret once (201, Location); listing and showing never include the secret")
    func createApp() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let (_, keyText, secret) = try await provision(admin)
        let key = try #require(AppKey(keyText))
        let stored = try #require(registry.storedApp(key))
        #expect(stored.secret.text == secret)
        #expect(secret.count == 43)
        #expect(stored.defaultMessageType == .otp)
        #expect(stored.createdAt == Self.t0.milliseconds)

        let list = try await send(admin, .GET, "/admin/apps")
        #expect(text(list) == #"{"apps":[{"appKey":"\#(keyText)","name":"Acme App","accountName":"Acme B.V.","#
            + #""defaultMessageType":"OTP","senderId":null,"apns":null,"fcm":null,"smsProtection":{"mode":"enforce","pinLength":null},"createdAt":"2026-09-21T14:13:20.000Z"}]}"#)
        let shown = try await send(admin, .GET, "/admin/apps/\(keyText.uppercased())")
        #expect(shown.status == .ok)
        #expect(text(shown) == #"{"appKey":"\#(keyText)","name":"Acme App","accountName":"Acme B.V.","#
            + #""defaultMessageType":"OTP","senderId":null,"apns":null,"fcm":null,"smsProtection":{"mode":"enforce","pinLength":null},"createdAt":"2026-09-21T14:13:20.000Z","#
            + #""registrations":{"Unverified":0,"WaitingForPin":0,"LastPinVerificationFailed":0,"PinVerified":0,"Invalid":0}}"#)
        for response in [list, shown] {
            #expect(!text(response).contains(secret))
            #expect(!text(response).contains("appSecret"))
        }
    }

    @Test("the created app's answer carries the Location and defaults the type to Default")
    func createAppDefaults() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let account = try json(try await send(admin, .POST, "/admin/accounts", #"{"name":"Acme"}"#))
        let token = try #require(account["productToken"] as? String)
        let created = try await send(admin, .POST, "/admin/apps", #"{"name":"Plain","account":"\#(token)","defaultMessageType":null}"#)
        let document = try json(created)
        let key = try #require(document["appKey"] as? String)
        #expect(created.headers["location"] == "/admin/apps/\(key)")
        #expect(document["defaultMessageType"] as? String == "Default")
        #expect(document["accountName"] as? String == "Acme")
        #expect(Array(document.keys).contains("appSecret"))
    }

    @Test("app creation names what is wrong: 400 for the body, 404 for an unknown account, 409 for a disabled one")
    func createAppErrors() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let (token, _, _) = try await provision(admin)
        let cases: [(String, HTTPStatus, String)] = [
            (#"{"account":"\#(token)"}"#, .badRequest, #""name" is required"#),
            (#"{"name":"X"}"#, .badRequest, #""account" is required"#),
            (#"{"name":"X","account":"acme"}"#, .badRequest, #""account" must be the account's product token (a GUID)"#),
            (#"{"name":"X","account":"\#(token)","defaultMessageType":"Urgent"}"#, .badRequest,
             #""defaultMessageType" must be Default, OTP or Critical, got "Urgent""#),
            (#"{"name":"X","account":"\#(token)","type":"OTP"}"#, .badRequest, #"unknown key "type""#),
            (#"{"name":"X","account":"00000000-0000-4000-8000-000000000000"}"#, .notFound,
             "no account has product token 00000000-****"),
        ]
        for (body, status, message) in cases {
            let response = try await send(admin, .POST, "/admin/apps", body)
            #expect(response.status == status, "\(body)")
            #expect(try error(response).hasPrefix(message), "\(text(response))")
        }
        registry.disable(try #require(ProductToken(token)))
        let disabled = try await send(admin, .POST, "/admin/apps", #"{"name":"X","account":"\#(token)"}"#)
        #expect(disabled.status == .conflict)
        #expect(try error(disabled) == #"the account "Acme B.V." is disabled"#)
        #expect(try registry.apps().count == 1)
    }

    @Test("showing an app reports its registrations by status; unknown keys are 404, malformed ones 400")
    func show() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let (_, keyText, _) = try await provision(admin)
        registry.setRegistrations([.pinVerified: 7, .waitingForPin: 2], for: try #require(AppKey(keyText)))
        let document = try json(try await send(admin, .GET, "/admin/apps/\(keyText)"))
        let counts = try #require(document["registrations"] as? [String: Int])
        #expect(counts == ["Unverified": 0, "WaitingForPin": 2, "LastPinVerificationFailed": 0, "PinVerified": 7, "Invalid": 0])

        let unknown = try await send(admin, .GET, "/admin/apps/00000000-0000-4000-8000-000000000009")
        #expect(unknown.status == .notFound)
        #expect(try error(unknown) == "no app has key 00000000-0000-4000-8000-000000000009")
        let malformed = try await send(admin, .GET, "/admin/apps/acme")
        #expect(malformed.status == .badRequest)
        #expect(try error(malformed) == #"the app key must be a GUID, got "acme""#)
    }

    @Test("rotating the secret returns a new one that replaces the old")
    func rotate() async throws {
        let registry = InMemoryAppRegistry()
        let admin = endpoint(registry)
        let (_, keyText, old) = try await provision(admin)
        for body in ["", "{}", " \n"] {
            let response = try await send(admin, .POST, "/admin/apps/\(keyText)/rotate-secret", body)
            #expect(response.status == .ok)
            let document = try json(response)
            let secret = try #require(document["appSecret"] as? String)
            #expect(document["appKey"] as? String == keyText)
            #expect(secret != old && secret.count == 43)
            #expect(registry.storedApp(try #require(AppKey(keyText)))?.secret.text == secret)
        }
        let withKey = try await send(admin, .POST, "/admin/apps/\(keyText)/rotate-secret", #"{"secret":"mine"}"#)
        #expect(withKey.status == .badRequest)
        #expect(try error(withKey) == #"unknown key "secret": this request takes no keys"#)
        let unknown = try await send(admin, .POST, "/admin/apps/00000000-0000-4000-8000-000000000009/rotate-secret")
        #expect(unknown.status == .notFound)
    }

    @Test("a failing store is a 500 whose details stay in the log")
    func storeFailure() async throws {
        let lines = LogLines()
        let logger = Logger(minimumLevel: .debug, now: { 0 }, sink: lines.append)
        let admin = endpoint(InMemoryAppRegistry(failing: true), logger: logger)
        for (method, target, body) in [(HTTPMethod.GET, "/admin/apps", ""), (.POST, "/admin/accounts", #"{"name":"A"}"#)] {
            let response = try await send(admin, method, target, body)
            #expect(response.status == .internalServerError)
            #expect(try error(response) == "the store failed; the server log has the details")
        }
        #expect(lines.all.contains("disk on fire"))
    }

    @Test("log lines record admin actions by app key and never hold a secret or a product token")
    func logs() async throws {
        let lines = LogLines()
        let logger = Logger(minimumLevel: .debug, now: { 0 }, sink: lines.append)
        let admin = endpoint(InMemoryAppRegistry(), logger: logger)
        let (token, keyText, secret) = try await provision(admin)
        let rotated = try json(try await send(admin, .POST, "/admin/apps/\(keyText)/rotate-secret"))
        let newSecret = try #require(rotated["appSecret"] as? String)
        _ = try await send(admin, .GET, "/admin/apps", authorization: "Bearer wrong-token")
        let log = lines.all
        #expect(log.contains(#""msg":"app created""#) && log.contains(#""msg":"app secret rotated""#))
        #expect(log.contains(#""msg":"admin token refused""#))
        #expect(log.contains(keyText))
        for hidden in [secret, newSecret, token, Self.token, "wrong-token"] {
            #expect(!log.contains(hidden), "\(hidden) leaked into the log")
        }
    }

    // MARK: - With the SQLite store

    @Test("the whole flow against the real store: what the API answers is what the store holds")
    func realStore() async throws {
        let directory = NSTemporaryDirectory() + "tandem-admin-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store.open(StoreConfiguration(path: directory + "/tandem.sqlite"))
        do {
            let admin = endpoint(store)
            let (token, keyText, secret) = try await provision(admin)
            let key = try #require(AppKey(keyText))
            #expect(try store.app(key: key)?.secret.text == secret)
            #expect(try store.account(productToken: try #require(ProductToken(token)))?.name == "Acme B.V.")

            _ = try await send(admin, .PUT, "/admin/apps/\(keyText)/apns",
                               #"{"keyFile":"\#(Self.keyFile)","keyId":"ABC123DEFG","teamId":"DEF123GHIJ","topic":"com.acme.app"}"#)
            _ = try await send(admin, .PUT, "/admin/apps/\(keyText)/fcm", #"{"serviceAccountFile":"\#(Self.serviceAccount)"}"#)
            let typed = try await send(admin, .PUT, "/admin/apps/\(keyText)/type", #"{"defaultMessageType":"Critical"}"#)
            #expect(typed.status == .ok)
            let rotated = try json(try await send(admin, .POST, "/admin/apps/\(keyText)/rotate-secret"))
            #expect(try store.app(key: key)?.secret.text == rotated["appSecret"] as? String)
            #expect(try store.app(key: key)?.defaultMessageType == .critical)
            #expect(try store.appDetails(key: key)?.pushCredentials == AppPushCredentials(
                apns: APNsCredentials(keySource: .file(Self.keyFile), keyID: "ABC123DEFG", teamID: "DEF123GHIJ",
                                      topic: "com.acme.app"),
                fcm: FCMCredentials(serviceAccountPath: Self.serviceAccount)))

            let shown = try await send(admin, .GET, "/admin/apps/\(keyText)")
            #expect(text(shown) == #"{"appKey":"\#(keyText)","name":"Acme App","accountName":"Acme B.V.","#
                + #""defaultMessageType":"Critical","senderId":null,"apns":{"keyFile":"/etc/tandem/AuthKey_ABC123DEFG.p8","keyId":"ABC123DEFG","#
                + #""teamId":"DEF123GHIJ","topic":"com.acme.app","sandbox":false},"#
                + #""fcm":{"serviceAccountFile":"/etc/tandem/acme-firebase.json"},"smsProtection":{"mode":"enforce","pinLength":null},"createdAt":"2026-09-21T14:13:20.000Z","#
                + #""registrations":{"Unverified":0,"WaitingForPin":0,"LastPinVerificationFailed":0,"PinVerified":0,"Invalid":0}}"#)
            let everything = text(shown) + text(try await send(admin, .GET, "/admin/apps"))
                + text(try await send(admin, .GET, "/admin/accounts"))
            for hidden in [secret, rotated["appSecret"] as? String ?? "?", token] {
                #expect(!everything.contains(hidden))
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}
