import Foundation
import Testing
import TandemCore
@testable import TandemProviders

@Suite("FCM message and service account")
struct FCMMessageTests {
    let messageID = GUID("0f8fad5b-d9cb-469f-a165-70867728950e")!

    private func message(_ text: String, notification: Bool = true, priority: Policy.PushPriority = .high) -> FCMMessage {
        FCMMessage(token: "tok", messageID: messageID, updateID: DeliveryKey(5), sender: "Tandem", text: text,
                   presentation: PushPresentation(), priority: priority,
                   renderer: FCMRenderer(includeNotification: notification, payloadLimit: 4_096))
    }

    private func object(_ bytes: [UInt8]) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(bytes))
    }

    @Test("the request body is the v1 message with string data, notification and android options")
    func shape() throws {
        let body = try object(message("Hi / \"there\"").encoded(ttlSeconds: 30))
        #expect(body == ["message": .object([
            "token": .string("tok"),
            "data": .object(["messageId": .string(messageID.text), "updateId": .string("5"), "sender": .string("Tandem"),
                             "body": .string("Hi / \"there\"")]),
            "notification": .object(["title": .string("Tandem"), "body": .string("Hi / \"there\"")]),
            "android": .object(["priority": .string("HIGH"), "ttl": .string("30s"), "collapse_key": .string(messageID.text)]),
        ])])
        let quiet = try object(message("x", notification: false, priority: .normal).encoded(ttlSeconds: -5))
        #expect(quiet["message"]?["notification"] == nil)
        #expect(quiet["message"]?["android"]?["priority"]?.string == "NORMAL")
        #expect(quiet["message"]?["android"]?["ttl"]?.string == "0s", "an expired TTL is sent as 0, never negative")
    }

    @Test("a long text is cut so both copies fit, on a character boundary",
          arguments: [true, false], ["a", "€", "👨‍👩‍👧", "\n"])
    func truncation(notification: Bool, unit: String) throws {
        let text = String(repeating: unit, count: 9_000 / unit.utf8.count)
        // The payload FCM limits: `data` and `notification`, as compact JSON.
        func sent(_ text: String) throws -> (body: String, bytes: Int) {
            func member(_ value: TandemCore.JSONValue?, _ key: String) -> TandemCore.JSONValue? {
                guard case .object(let members)? = value else { return nil }
                return members.first { $0.key == key }?.value
            }
            let tree = try JSONParser.parse(self.message(text, notification: notification).encoded(ttlSeconds: 30)).get()
            let message = member(tree, "message")
            let data = try #require(member(message, "data"))
            let bytes = data.compactText.utf8.count + (member(message, "notification")?.compactText.utf8.count ?? 0)
            guard case .string(let body)? = member(data, "body") else { throw CocoaError(.coderValueNotFound) }
            return (body, bytes)
        }
        let built = try sent(text)
        #expect(built.bytes <= 4_096)
        #expect(built.bytes > 4_096 - 40, "\(built.bytes)")
        #expect(built.body.hasSuffix("…"))
        let kept = String(built.body.dropLast())
        #expect(text.hasPrefix(kept) && kept.count % unit.count == 0)
        #expect(try sent("short").body == "short")
    }

    @Test("a service-account file parses with Google's extra members; broken ones name the problem")
    func serviceAccount() throws {
        let directory = try TemporaryDirectory()
        let rsa = try String(contentsOfFile: OpenSSLTool.generateKey(.rsa(2048), at: directory.path + "/rsa.pem"), encoding: .utf8)
        let ec = try String(contentsOfFile: OpenSSLTool.generateKey(.ec("P-256"), at: directory.path + "/ec.pem"), encoding: .utf8)
        func file(_ members: [String: String]) throws -> [UInt8] { Array(try JSONEncoder().encode(members)) }
        let good: [String: String] = ["type": "service_account", "project_id": "acme-app", "private_key_id": "k1",
                                      "private_key": rsa, "client_email": "a@acme-app.iam.gserviceaccount.com",
                                      "token_uri": "https://oauth2.googleapis.com/token", "universe_domain": "googleapis.com"]
        let account = try FCMServiceAccount(json: try file(good), path: "/a.json")
        #expect(account.projectID == "acme-app" && account.privateKeyID == "k1" && account.key.algorithm == .rs256)

        var noProject = good
        noProject["project_id"] = nil
        var badProject = good
        badProject["project_id"] = "acme/../x"
        var user = good
        user["type"] = "authorized_user"
        var noURI = good
        noURI["token_uri"] = nil
        for (name, members) in [("no project", noProject), ("bad project", badProject), ("user", user), ("no token_uri", noURI)] {
            #expect(throws: PushKeyError.self, "\(name)") { try FCMServiceAccount(json: try file(members), path: "/a.json") }
        }
        var ecKey = good
        ecKey["private_key"] = ec
        #expect(throws: PushKeyError.invalidKey(.invalidKey("a service account key must be an RSA key"))) {
            try FCMServiceAccount(json: try file(ecKey), path: "/a.json")
        }
        #expect(throws: PushKeyError.malformedServiceAccount(path: "/a.json", problem: "not a JSON object of strings")) {
            try FCMServiceAccount(json: Array("[1]".utf8), path: "/a.json")
        }
    }

    @Test("the assertion is an RS256 JWT with kid, iss, scope, aud and a one-hour lifetime that openssl verifies")
    func assertion() throws {
        let directory = try TemporaryDirectory()
        let keyPath = try OpenSSLTool.generateKey(.rsa(2048), at: directory.path + "/rsa.pem")
        let members: [String: String] = ["type": "service_account", "project_id": "p", "private_key_id": "kid-9",
                                         "private_key": try String(contentsOfFile: keyPath, encoding: .utf8),
                                         "client_email": "svc@p.iam.gserviceaccount.com", "token_uri": "https://t/token"]
        let account = try FCMServiceAccount(json: Array(try JSONEncoder().encode(members)), path: "/p.json")
        let jwt = try FCMTokenFetcher.assertion(for: account, audience: "https://t/token",
                                                now: Timestamp(milliseconds: 1_700_000_000_999))
        let parts = jwt.split(separator: ".")
        try #require(parts.count == 3)
        #expect(base64URLDecoded(parts[0]).map { String(decoding: $0, as: UTF8.self) } == #"{"alg":"RS256","typ":"JWT","kid":"kid-9"}"#)
        #expect(base64URLDecoded(parts[1]).map { String(decoding: $0, as: UTF8.self) }
                == #"{"iss":"svc@p.iam.gserviceaccount.com","scope":"https://www.googleapis.com/auth/firebase.messaging","aud":"https://t/token","iat":1700000000,"exp":1700003600}"#)
        let publicKey = try OpenSSLTool.publicKey(of: keyPath, to: directory.path + "/rsa.pub")
        #expect(try OpenSSLTool.verify(sha256Signature: try #require(base64URLDecoded(parts[2])),
                                       of: Array((parts[0] + "." + parts[1]).utf8), publicKey: publicKey, in: directory))
    }
}
