import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every backend's myMSP directory must do (``MyMSPDirectory``): each test runs
/// against SQLite and PostgreSQL.
@Suite("myMSP directory contract")
struct MyMSPContractTests {
    static let t0 = Fixture.t0

    /// A store with the fixture apps and the user `dpnuser` bound to the first app.
    private func withUser(_ backend: Backend, eventURL: String? = "http://127.0.0.1:9/events",
                          _ body: (any StoreUnderTest, any MyMSPDirectory, MyMSPUser) async throws -> Void) async throws {
        let store = try await backend.open()
        do {
            try await PortFixture.insertApps(store)
            let directory = try #require(store.database as? any MyMSPDirectory)
            #expect(try await directory.setMyMSPUser(app: PortFixture.app, name: "dpnuser", passwordSalt: "s", passwordHash: "h",
                                                     eventURL: eventURL, at: Self.t0))
            let user = try #require(try await directory.mymspUser(name: "dpnuser"))
            try await body(store, directory, user)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    private func events(_ directory: any MyMSPDirectory, _ user: MyMSPUser) async throws -> [(Int64, MyMSPAction, Int64, String, String)] {
        try await directory.mymspEvents(user: user.id, after: 0, limit: 100).map {
            ($0.msgno, $0.action, $0.recipient, $0.destination, $0.subject)
        }
    }

    @Test("users: one per app, updated in place, found by name and app; unknown apps refused, a name is one app's",
          arguments: Backend.allCases)
    func users(_ backend: Backend) async throws {
        try await withUser(backend) { _, directory, user in
            #expect(user.name == "dpnuser" && user.app == PortFixture.app && user.eventURL == "http://127.0.0.1:9/events")
            #expect((user.passwordSalt, user.passwordHash) == ("s", "h"))
            #expect(try await directory.mymspUser(app: PortFixture.app) == user)
            #expect(try await directory.mymspUser(app: PortFixture.otherApp) == nil)
            #expect(try await directory.mymspUser(name: "nobody") == nil)
            #expect(try await !directory.setMyMSPUser(app: PortFixture.unknownApp, name: "x", passwordSalt: "s", passwordHash: "h",
                                                      eventURL: nil, at: Self.t0))
            await #expect(throws: (any Error).self) {
                _ = try await directory.setMyMSPUser(app: PortFixture.otherApp, name: "dpnuser", passwordSalt: "s", passwordHash: "h",
                                                     eventURL: nil, at: Self.t0)
            }
            #expect(try await directory.setMyMSPUser(app: PortFixture.app, name: "renamed", passwordSalt: "s2", passwordHash: "h2",
                                                     eventURL: nil, at: Self.t0))
            let renamed = try #require(try await directory.mymspUser(app: PortFixture.app))
            #expect(renamed.id == user.id && renamed.name == "renamed" && renamed.eventURL == nil && renamed.passwordHash == "h2")
            #expect(try await directory.mymspUser(name: "dpnuser") == nil)
        }
    }

    @Test("subscribe: registrations with ids from 2000001, the same key again is the same recipient, one event each in msgno order shared with notifications",
          arguments: Backend.allCases)
    func subscribe(_ backend: Backend) async throws {
        try await withUser(backend) { store, directory, user in
            let key = try #require(PushToken("tok-1"))
            #expect(try await directory.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: key, subject: "hi",
                                                       destination: "/s", at: Self.t0) == .done(recipient: 2_000_001, reactivated: false))
            #expect(try await directory.mymspSubscribe(user: user, recipient: nil, provider: .fcm, key: try #require(PushToken("tok-2")),
                                                       subject: "", destination: "/s", at: Self.t0)
                    == .done(recipient: 2_000_002, reactivated: false))
            #expect(try await directory.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: key, subject: "again",
                                                       destination: "/s", at: Self.t0) == .done(recipient: 2_000_001, reactivated: false))
            #expect(try await directory.mymspSubscribe(user: user, recipient: 2_000_002, provider: .fcm, key: key, subject: "more",
                                                       destination: "/s", at: Self.t0) == .done(recipient: 2_000_002, reactivated: false))
            #expect(try await directory.mymspSubscribe(user: user, recipient: 9, provider: .fcm, key: key, subject: "",
                                                       destination: "/s", at: Self.t0) == .unknownRecipient)
            let recorded = try await events(directory, user)
            #expect(recorded.map(\.0) == [1, 2, 3, 4])
            #expect(recorded.map(\.2) == [2_000_001, 2_000_002, 2_000_001, 2_000_002])
            #expect(recorded.map(\.4) == ["hi", "", "again", "more"])
            #expect(recorded.allSatisfy { $0.1 == .subscribe && $0.3 == "/s" })
            #expect(try await directory.mymspEvents(user: user.id, after: 2, limit: 1).map(\.msgno) == [3])
            #expect(try await store.scalar("SELECT origin || '/' || platform FROM registrations WHERE push_token = 'tok-1'") == "mymsp/iOS")
            #expect(try await store.scalar("SELECT origin || '/' || platform FROM registrations WHERE push_token = 'tok-2'") == "mymsp/Android")
            let listing = try #require(store.database as? any TandemDatabase)
            #expect(try await listing.mymspRecipients(app: PortFixture.app).map(\.provider) == [.apns, .fcm])
            #expect(try await listing.mymspRecipients(app: PortFixture.otherApp).isEmpty)
            #expect(try await directory.mymspReserveNumbers(100) == 5...104)  // notifications share the space
            #expect(try await directory.mymspReserveNumbers(0) == 105...105)
            _ = try await directory.mymspSubscribe(user: user, recipient: 2_000_001, provider: .apns, key: key, subject: "",
                                                   destination: "/s", at: Self.t0)
            #expect(try await events(directory, user).last?.0 == 106)

            // A key another registration of the app holds (an SDK install) is not the user's to take.
            try await PortFixture.insertInstall(store, device: try Fixture.device(1), app: PortFixture.app, token: "sdk")
            #expect(try await directory.mymspSubscribe(user: user, recipient: nil, provider: .fcm, key: try #require(PushToken("sdk")),
                                                       subject: "", destination: "/s", at: Self.t0) == .keyTaken)
            #expect(try await events(directory, user).count == 5)
            #expect(try await store.count("mymsp_recipients") == 2)
        }
    }

    @Test("msgnos are handed out once each, without gaps, to reservations and events running at once", arguments: Backend.allCases)
    func concurrentNumbers(_ backend: Backend) async throws {
        try await withUser(backend) { _, directory, user in
            let ranges = try await withThrowingTaskGroup(of: ClosedRange<Int64>?.self) { group in
                for n in 0..<24 {
                    group.addTask {
                        if n % 3 == 0 {
                            _ = try await directory.mymspSubscribe(user: user, recipient: nil, provider: .fcm,
                                                                   key: try #require(PushToken("k-\(n)")), subject: "",
                                                                   destination: "/s", at: Self.t0)
                            return nil
                        }
                        return try await directory.mymspReserveNumbers(n)
                    }
                }
                var ranges: [ClosedRange<Int64>] = []
                for try await range in group { if let range { ranges.append(range) } }
                return ranges
            }
            let events = try await directory.mymspEvents(user: user.id, after: 0, limit: 100).map(\.msgno)
            #expect(events.count == 8)
            let numbers = (ranges.flatMap { Array($0) } + events).sorted()
            let expected = (0..<24).filter { $0 % 3 != 0 }.map { max(1, $0) }.reduce(8, +)
            #expect(numbers == Array(1...Int64(expected)))
        }
    }

    @Test("updatekey reactivates, refuses another registration's key, makes no event; unsubscribe and unsubscribeall only while active",
          arguments: Backend.allCases)
    func lifecycle(_ backend: Backend) async throws {
        try await withUser(backend) { _, directory, user in
            for key in ["a", "b"] {
                _ = try await directory.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: try #require(PushToken(key)),
                                                       subject: "", destination: "/s", at: Self.t0)
            }
            #expect(try await directory.mymspActiveRecipients(user: user.id, ids: [2_000_001, 2_000_002], groups: []).count == 2)
            #expect(try await directory.mymspUnsubscribe(user: user, recipient: 2_000_001, deactivate: false, subject: "x",
                                                         destination: "/u", at: Self.t0) == true)
            #expect(try await directory.mymspRecipient(user: user.id, id: 2_000_001)?.active == true)
            #expect(try await directory.mymspUnsubscribe(user: user, recipient: 2_000_001, deactivate: true, subject: "y",
                                                         destination: "/ua", at: Self.t0) == true)
            #expect(try await directory.mymspUnsubscribe(user: user, recipient: 2_000_001, deactivate: true, subject: "z",
                                                         destination: "/ua", at: Self.t0) == false)
            #expect(try await directory.mymspUnsubscribe(user: user, recipient: 2_000_001, deactivate: false, subject: "z",
                                                         destination: "/u", at: Self.t0) == false)
            #expect(try await directory.mymspUnsubscribe(user: user, recipient: 7, deactivate: true, subject: "",
                                                         destination: "/ua", at: Self.t0) == nil)
            #expect(try await directory.mymspRecipient(user: user.id, id: 2_000_001)?.active == false)
            #expect(try await directory.mymspRecipient(user: user.id + 1, id: 2_000_001) == nil)
            #expect(try await directory.mymspActiveRecipients(user: user.id, ids: [2_000_001, 2_000_002], groups: []).map(\.id) == [2_000_002])
            #expect(try await directory.mymspUpdateKey(user: user, recipient: 2_000_001, provider: .fcm, key: try #require(PushToken("b")),
                                                       at: Self.t0) == .keyTaken)
            #expect(try await directory.mymspUpdateKey(user: user, recipient: 9, provider: .fcm, key: try #require(PushToken("q")),
                                                       at: Self.t0) == .unknownRecipient)
            #expect(try await directory.mymspUpdateKey(user: user, recipient: 2_000_001, provider: .fcm, key: try #require(PushToken("c")),
                                                       at: Self.t0) == .done(recipient: 2_000_001, reactivated: true))
            #expect(try await directory.mymspUpdateKey(user: user, recipient: 2_000_001, provider: .fcm, key: try #require(PushToken("c")),
                                                       at: Self.t0) == .done(recipient: 2_000_001, reactivated: false))
            let recipient = try #require(try await directory.mymspRecipient(user: user.id, id: 2_000_001))
            #expect(recipient.provider == .fcm && recipient.active)
            #expect(try await events(directory, user).map(\.1) == [.subscribe, .subscribe, .unsubscribe, .unsubscribeAll])
            #expect(try await directory.mymspActiveRecipients(user: user.id, ids: [2_000_002, 2_000_001, 2_000_002], groups: []).map(\.id)
                    == [2_000_002, 2_000_001])
            // Subscribing again by key after unsubscribeall reactivates.
            #expect(try await directory.mymspUnsubscribe(user: user, recipient: 2_000_002, deactivate: true, subject: "",
                                                         destination: "/ua", at: Self.t0) == true)
            #expect(try await directory.mymspActiveRecipients(user: user.id, ids: [2_000_002, 2_000_001], groups: []).map(\.id) == [2_000_001])
            #expect(try await directory.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: try #require(PushToken("b")),
                                                       subject: "", destination: "/s", at: Self.t0) == .done(recipient: 2_000_002, reactivated: true))
        }
    }

    @Test("groups: created, replaced, listed by name with their members; only the user's recipients; short names are unique; deleted",
          arguments: Backend.allCases)
    func groups(_ backend: Backend) async throws {
        try await withUser(backend) { _, directory, user in
            for key in ["a", "b", "c"] {
                _ = try await directory.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: try #require(PushToken(key)),
                                                       subject: "", destination: "/s", at: Self.t0)
            }
            try await directory.setMyMSPGroup(user: user.id, name: "everyone", shortName: "all", recipients: [2_000_002, 2_000_001, 5],
                                              at: Self.t0)
            try await directory.setMyMSPGroup(user: user.id, name: "b-team", shortName: nil, recipients: [2_000_003], at: Self.t0)
            #expect(try await directory.mymspGroups(user: user.id) == [
                MyMSPGroup(name: "b-team", shortName: nil, recipients: [2_000_003]),
                MyMSPGroup(name: "everyone", shortName: "all", recipients: [2_000_001, 2_000_002]),
            ])
            #expect(try await directory.mymspActiveRecipients(user: user.id, ids: [2_000_002], groups: ["all", "none"]).map(\.id)
                    == [2_000_002, 2_000_001])
            #expect(try await directory.mymspActiveRecipients(user: user.id, ids: [], groups: ["b-team", "everyone"]).map(\.id)
                    == [2_000_003, 2_000_001, 2_000_002])
            #expect(try await directory.mymspActiveRecipients(user: user.id, ids: [], groups: []).isEmpty)
            await #expect(throws: (any Error).self) {
                try await directory.setMyMSPGroup(user: user.id, name: "other", shortName: "all", recipients: [], at: Self.t0)
            }
            try await directory.setMyMSPGroup(user: user.id, name: "everyone", shortName: "E", recipients: [2_000_003], at: Self.t0)
            #expect(try await directory.mymspGroups(user: user.id).last == MyMSPGroup(name: "everyone", shortName: "E",
                                                                                      recipients: [2_000_003]))
            #expect(try await directory.deleteMyMSPGroup(user: user.id, name: "everyone"))
            #expect(try await !directory.deleteMyMSPGroup(user: user.id, name: "everyone"))
            #expect(try await !directory.deleteMyMSPGroup(user: user.id + 1, name: "b-team"))
            #expect(try await directory.mymspGroups(user: user.id).map(\.name) == ["b-team"])
            #expect(try await directory.mymspGroups(user: user.id + 1).isEmpty)
        }
    }

    @Test("a dead key deactivates an active recipient with one ACTION_UNSUB_ALL; updatekey brings it back", arguments: Backend.allCases)
    func deadKey(_ backend: Backend) async throws {
        try await withUser(backend) { store, directory, user in
            _ = try await directory.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: try #require(PushToken("dead")),
                                                   subject: "", destination: "/s", at: Self.t0)
            for _ in 0..<2 {
                // The statement the delivery stores run for the lifecycle's invalidateRegistration.
                try await store.execute("""
                    UPDATE registrations SET status = 'Invalid', updated_at = \(Self.t0.milliseconds + 5)
                    WHERE push_token = 'dead' AND status <> 'Invalid'
                    """)
            }
            let recorded = try await events(directory, user)
            #expect(recorded.count == 2)
            #expect(recorded.last.map { "\($0.0) \($0.1.rawValue) \($0.2) [\($0.3)] \($0.4)" } == "2 ACTION_UNSUB_ALL 2000001 [] unsub [2000001]")
            #expect(try await directory.mymspRecipient(user: user.id, id: 2_000_001)?.active == false)
            #expect(try await directory.mymspUpdateKey(user: user, recipient: 2_000_001, provider: .apns, key: try #require(PushToken("new")),
                                                       at: Self.t0) == .done(recipient: 2_000_001, reactivated: true))
            #expect(try await directory.mymspActiveRecipients(user: user.id, ids: [2_000_001], groups: []).count == 1)
            #expect(try await store.scalar("SELECT status FROM registrations") == "Unverified")
            // The next number continues after the trigger's.
            #expect(try await directory.mymspReserveNumbers(1) == 3...3)
        }
    }

    @Test("events are queued for the event URL in msgno order, one due at a time per URL", arguments: Backend.allCases)
    func outboxOrder(_ backend: Backend) async throws {
        try await withUser(backend) { store, directory, user in
            for token in ["a", "b"] {
                _ = try await directory.mymspSubscribe(user: user, recipient: nil, provider: .apns, key: try #require(PushToken(token)),
                                                       subject: "s-\(token)", destination: "/s", at: Self.t0)
            }
            let due = try await store.outbox.dueReports(now: Self.t0, limit: 10)
            guard case .mymspEvent(let first)? = due.first?.content else {
                Issue.record("expected one myMSP event, got \(due)")
                return
            }
            #expect(due.count == 1 && due[0].url == "http://127.0.0.1:9/events")
            #expect((first.msgno, first.userName, first.subject, first.createdAt) == (1, "dpnuser", "s-a", Self.t0))
            try await store.outbox.markDelivered(due[0].id, attempts: 1, at: Self.t0)
            let next = try await store.outbox.dueReports(now: Self.t0, limit: 10)
            guard case .mymspEvent(let second)? = next.first?.content else {
                Issue.record("expected the second event, got \(next)")
                return
            }
            #expect(next.count == 1 && second.msgno == 2 && second.subject == "s-b")
        }
    }

    @Test("without an event URL nothing is queued; events are purged by age", arguments: Backend.allCases)
    func pollOnly(_ backend: Backend) async throws {
        try await withUser(backend, eventURL: nil) { store, directory, user in
            _ = try await directory.mymspSubscribe(user: user, recipient: nil, provider: .gcm, key: try #require(PushToken("a")),
                                                   subject: "", destination: "/s", at: Self.t0)
            _ = try await directory.mymspSubscribe(user: user, recipient: nil, provider: .gcm, key: try #require(PushToken("b")),
                                                   subject: "", destination: "/s", at: Self.t0 + .seconds(1))
            #expect(try await store.count("outbox") == 0)
            #expect(try await directory.purgeMyMSPEvents(before: Self.t0) == 0)
            #expect(try await directory.purgeMyMSPEvents(before: Self.t0 + .milliseconds(1)) == 1)
            #expect(try await events(directory, user).map(\.0) == [2])
        }
    }

    @Test("notifications: the device's pushed myMSP messages after a msgno and a time, in msgno order, limited",
          arguments: Backend.allCases)
    func notifications(_ backend: Backend) async throws {
        try await withUser(backend) { store, directory, user in
            let device = try Fixture.device(5)
            let records = try (1...4).map { n in
                try Fixture.pushed(to: [device], msisdn: Fixture.msisdn(n), content: Fixture.content(n),
                                   at: Self.t0 + .seconds(Int64(n)))
            }
            let keys = try await store.deliveries.commit(inserts: records, changes: [])
            try await store.execute("UPDATE deliveries SET msisdn = '\(DeliveryRecipient.device(device).storedText)'")
            // Messages 1–3 are myMSP notifications numbered 30, 10, 20; message 4 came through another API.
            for (n, msgno) in [(1, 30), (2, 10), (3, 20)] {
                try await store.execute("""
                    UPDATE messages SET api = 'mymsp', extra = '{"msgno":\(msgno)}', created_at = \(Self.t0.milliseconds + Int64(n) * 1000)
                    WHERE message_id = '\(try Fixture.guid(n).text)'
                    """)
            }
            let all = try await directory.mymspNotifications(device: device, after: 0, sentAfter: nil, limit: 10)
            #expect(all.map(\.msgno) == [10, 20, 30] && all.map(\.delivery) == [keys[1], keys[2], keys[0]])
            #expect(all.first == MyMSPNotification(msgno: 10, sentAt: Self.t0 + .seconds(2), text: records[1].content.body,
                                                   delivery: keys[1], final: false))
            #expect(try await directory.mymspNotifications(device: device, after: 10, sentAfter: nil, limit: 1).map(\.msgno) == [20])
            #expect(try await directory.mymspNotifications(device: device, after: 0, sentAfter: Self.t0 + .seconds(3), limit: 10)
                .map(\.msgno) == [20])
            #expect(try await directory.mymspNotifications(device: try Fixture.device(6), after: 0, sentAfter: nil, limit: 10).isEmpty)
        }
    }
}
