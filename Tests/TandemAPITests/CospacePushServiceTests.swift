import Foundation
import Testing
@testable import TandemAPI
import TandemCore
import TandemStore

/// `/api/push` over a real store: bearer authentication and the application-id check against the app's
/// APNs credentials.
@Suite("cospace /api/push service")
struct CospacePushServiceTests {
    static let appKey = AppKey(GUID("00000000-0000-0000-0000-0000000000c1")!)
    static let user = AppUserID(GUID("9aed5e94-3803-11e3-8475-0024e8f90cc0")!)
    static let apns = APNsCredentials(keySource: .file("/etc/tandem/AuthKey.p8"), keyID: "ABC123DEFG", teamID: "39JSDKGJ38",
                                      topic: "de.cospace.app", sandbox: true)

    private func withService(apns: APNsCredentials? = apns,
                             _ body: (CospacePushService, Store, String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "tandem-cospace-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store.open(StoreConfiguration(path: directory + "/tandem.sqlite"))
        let account = Account(name: "Acme", productToken: ProductToken(GUID("00000000-0000-0000-0000-0000000000f1")!), createdAt: 1)
        try await store.insert(account)
        try await store.insert(App(key: Self.appKey, secret: AppSecret("secret")!, name: "cospace", account: account.productToken,
                                   defaultMessageType: .default, createdAt: 2))
        if let apns { _ = try await store.setAPNsCredentials(key: Self.appKey, apns) }
        let (token, hash) = AppUserToken.generate()
        #expect(try await store.addUser(app: Self.appKey, user: Self.user, tokenHash: hash, at: Timestamp(milliseconds: 3)) == .added)
        let service = CospacePushService(registry: store, directory: store, credentials: store, now: { Timestamp(milliseconds: 4) })
        do {
            try await body(service, store, token)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    static func add(_ applicationID: String, token: String = String(repeating: "0f", count: 32)) -> [UInt8] {
        Array(#"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"\#(applicationID)"}"#.utf8)
    }

    @Test("tokens: 64 hex digits, different each time, stored only as their SHA-256")
    func tokens() {
        let first = AppUserToken.generate(), second = AppUserToken.generate()
        #expect(first.token.utf8.count == 64 && first.token.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        #expect(first.token != second.token && first.hash != first.token)
        #expect(AppUserToken.hash(first.token) == first.hash)
        #expect(AppUserToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("a missing, malformed, unknown or revoked bearer token is 401 with a challenge")
    func authentication() async throws {
        try await withService { service, store, token async throws in
            #expect(await service.tokens(authorization: "Bearer \(token)").status == 200)
            #expect(await service.tokens(authorization: "bearer  \(token) ").status == 200)
            for header in [nil, "", "Bearer", "Bearer ", "Basic \(token)", token, "Bearer \(token)x", "Bearer \(token.uppercased())"] as [String?] {
                let reply = await service.tokens(authorization: header)
                #expect(reply.status == 401 && reply.challenge, "\(String(describing: header))")
            }
            #expect(try await store.revokeUser(app: Self.appKey, user: Self.user, at: Timestamp(milliseconds: 5)) == .revoked)
            let revoked = await service.change(authorization: "Bearer \(token)", body: Self.add("39JSDKGJ38.de.cospace.app"))
            #expect(revoked.status == 401 && revoked.document.compactText == #"{"error":"the bearer token was revoked"}"#)
        }
    }

    @Test("an application id is known when the app's APNs credentials have its team id and bundle id", arguments: [
        ("39JSDKGJ38.de.cospace.app", 200), ("39JSDKGJ38Xde.cospace.app", 200), ("39JSDKGJ39.de.cospace.app", 400),
        ("39JSDKGJ38.de.cospace.app.voip", 400), ("39jsdkgj38.de.cospace.app", 400),
    ])
    func knownApplicationID(applicationID: String, status: Int) async throws {
        try await withService { service, _, token async throws in
            let reply = await service.change(authorization: "Bearer \(token)", body: Self.add(applicationID))
            #expect(reply.status == status)
            if status == 400 { #expect(reply.document.compactText == #"{"status":"unknown-appid"}"#) }
        }
    }

    @Test("without APNs credentials every application id is unknown; GET reports the app's environment for tokens without their own")
    func withoutCredentials() async throws {
        try await withService(apns: nil) { service, _, token async throws in
            let reply = await service.change(authorization: "Bearer \(token)", body: Self.add("39JSDKGJ38.de.cospace.app"))
            #expect(reply.document.compactText == #"{"status":"unknown-appid"}"#)
        }
        try await withService { service, _, token async throws in
            #expect(await service.change(authorization: "Bearer \(token)", body: Self.add("39JSDKGJ38.de.cospace.app")).status == 200)
            let listed = await service.tokens(authorization: "Bearer \(token)").document.compactText
            #expect(listed == #"{"gcm":{"sender_id":null,"registration_ids":[]},"apns":{"device_tokens":{"\#(String(repeating: "0f", count: 32))":{"application_id":"39JSDKGJ38.de.cospace.app","sandbox":true}}}}"#)
        }
    }
}
