import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore

@Suite("myMSP store (migrations 25 and 26)")
struct MyMSPStoreTests {
    static let t0 = Timestamp(milliseconds: 1_700_000_000_000)

    private func withUser(eventURL: String? = "http://127.0.0.1:9/events",
                          _ body: (Store, MyMSPUser) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/tandem.sqlite"))
            let account = Account(name: "Acme", productToken: ProductToken(try Fixture.guid(0xA1)), createdAt: 1)
            try await store.insert(account)
            let app = App(key: AppKey(try Fixture.guid(0x1)), secret: try #require(AppSecret("first-secret")), name: "News",
                          account: account.productToken, defaultMessageType: .default, createdAt: 10)
            try await store.insert(app)
            #expect(try await store.setMyMSPUser(app: app.key, name: "dpnuser", passwordSalt: "s", passwordHash: "h",
                                                 eventURL: eventURL, at: Self.t0))
            let user = try #require(try store.mymspUser(name: "dpnuser"))
            do {
                try await body(store, user)
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    private func events(_ store: Store, _ user: MyMSPUser) throws -> [(Int64, MyMSPAction, Int64, String, String)] {
        try store.mymspEvents(user: user.id, after: 0, limit: 100).map { ($0.msgno, $0.action, $0.recipient, $0.destination, $0.subject) }
    }

    @Test("recipients by id and their routing registrations come from the cache once read; each change is seen at once")
    func cachedRecipients() async throws {
        try await withUser { store, user in
            for token in ["a", "b"] {
                _ = try await store.mymspSubscribe(user: user, recipient: nil, provider: .fcm, key: try #require(PushToken(token)),
                                                   subject: "", destination: "/s", at: Self.t0)
            }
            let app = try #require(try store.mymspUser(name: "dpnuser")).app
            let both = try store.mymspActiveRecipients(user: user.id, ids: [2_000_002, 2_000_001, 2_000_002], groups: [])
            #expect(both.map(\.id) == [2_000_002, 2_000_001] && store.registrations.mymspCount == 2)
            let device = both[1].device
            #expect(try store.registration(app: app, device: device)?.pushToken == PushToken("a"))
            #expect(store.registrations.routingCount == 1)
            #expect(try store.registration(app: AppKey(try Fixture.guid(0x2)), device: device) == nil)  // not that app's
            // A row changed behind the store's back is not seen: what is answered comes from the cache.
            try await store.write { (db: Connection) throws(StoreError) in
                _ = try db.run("UPDATE mymsp_recipients SET active = 0 WHERE recipient_id = 2000002")
                _ = try db.run("UPDATE registrations SET msisdn = '+31612345678' WHERE device_id = ?", [.text(device.text)])
            }
            #expect(try store.mymspActiveRecipients(user: user.id, ids: [2_000_001, 2_000_002], groups: []).count == 2)
            #expect(try store.registration(app: app, device: device)?.msisdn == nil)
            #expect(try store.mymspActiveRecipients(user: user.id, ids: [2_000_002], groups: ["none"]).isEmpty)  // groups: read
            store.registrations.invalidateAll()
            #expect(try store.mymspActiveRecipients(user: user.id, ids: [2_000_001, 2_000_002], groups: []).map(\.id) == [2_000_001])
            #expect(try store.registration(app: app, device: device)?.msisdn == MSISDN("+31612345678"))
            // unsubscribeall, a dead key (the delivery store's invalidation) and updatekey are seen at once.
            #expect(try await store.mymspUnsubscribe(user: user, recipient: 2_000_001, deactivate: true, subject: "",
                                                     destination: "/ua", at: Self.t0) == true)
            #expect(try store.mymspActiveRecipients(user: user.id, ids: [2_000_001], groups: []).isEmpty)
            #expect(try await store.mymspUpdateKey(user: user, recipient: 2_000_001, provider: .fcm, key: try #require(PushToken("c")),
                                                   at: Self.t0) == .done(recipient: 2_000_001, reactivated: true))
            #expect(try store.mymspActiveRecipients(user: user.id, ids: [2_000_001], groups: []).count == 1)
            #expect(try store.registration(app: app, device: device)?.pushToken == PushToken("c"))
            try await store.write { (db: Connection) throws(StoreError) in
                _ = try db.run("UPDATE registrations SET status = 'Invalid' WHERE device_id = ?", [.text(device.text)])
            }
            store.registrations.invalidate([device])  // what SQLiteDeliveryStore does after its commit
            #expect(try store.mymspActiveRecipients(user: user.id, ids: [2_000_001], groups: []).isEmpty)
            #expect(try store.registration(app: app, device: device)?.status == .invalid)
        }
    }

    @Test("events are queued for the event URL and due one at a time per URL, in order")
    func outboxOrder() async throws {
        try await withUser { store, user in
            for token in ["a", "b"] {
                _ = try await store.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: try #require(PushToken(token)),
                                                   subject: "s-\(token)", destination: "/s", at: Self.t0)
            }
            let outbox = SQLiteOutbox(store: store)
            let due = try await outbox.dueReports(now: Self.t0, limit: 10)
            guard case .mymspEvent(let first)? = due.first?.content else {
                Issue.record("expected one myMSP event, got \(due)")
                return
            }
            #expect(due.count == 1 && due[0].url == "http://127.0.0.1:9/events")
            #expect((first.msgno, first.userName, first.subject, first.createdAt) == (1, "dpnuser", "s-a", Self.t0))
            try await outbox.reschedule(due[0].id, attempts: 1, next: Self.t0 + .seconds(5), error: "HTTP 503")
            #expect(try await outbox.dueReports(now: Self.t0 + .seconds(1), limit: 10).isEmpty)  // the second waits for the first
            try await outbox.markDelivered(due[0].id, attempts: 2, at: Self.t0 + .seconds(5))
            let next = try await outbox.dueReports(now: Self.t0 + .seconds(5), limit: 10)
            guard case .mymspEvent(let second)? = next.first?.content else {
                Issue.record("expected the second event, got \(next)")
                return
            }
            #expect(next.count == 1 && second.msgno == 2 && second.subject == "s-b")
        }
    }

    @Test("deleting an app no message names removes its myMSP user, recipients, groups and events; the name is free again")
    func deleteApp() async throws {
        try await withUser { store, user in
            for key in ["a", "b"] {
                _ = try await store.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: try #require(PushToken(key)),
                                                   subject: "", destination: "/s", at: Self.t0)
            }
            try await store.setMyMSPGroup(user: user.id, name: "all", shortName: "A", recipients: [2_000_001, 2_000_002], at: Self.t0)
            #expect(try await store.deleteApp(key: user.app) == .deleted(registrations: 2))
            let left = try store.read { db throws(StoreError) in
                try ["mymsp_users", "mymsp_recipients", "mymsp_groups", "mymsp_group_members", "mymsp_events", "registrations"]
                    .map { table throws(StoreError) in try db.scalar("SELECT count(*) FROM \(table)", as: Int64.self) ?? -1 }
            }
            #expect(left == [0, 0, 0, 0, 0, 0])
            #expect(try store.mymspUser(name: user.name) == nil)
        }
    }
}
