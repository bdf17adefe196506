import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every store must do for the sender APIs' reads (`SenderDirectory`, `MessageLedger`), the intake's push
/// addresses (``PushAddressRegistry``) and the operator's search (``MessageSearch``); each test runs against
/// SQLite and PostgreSQL.
@Suite("Gateway reads contract")
struct GatewayReadsContractTests {
    @Test("registrations by number: the app's installs with that number only; apps by sender id within the account",
          arguments: Backend.allCases)
    func registrationsByNumber(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        let one = try Fixture.msisdn(1), two = try Fixture.msisdn(2)
        for (n, app, msisdn, status) in [(1, directory.first, one, "PinVerified"), (2, directory.first, one, "Invalid"),
                                         (3, directory.first, two, "PinVerified"), (4, directory.second, one, "PinVerified")] {
            try await directory.store.execute("""
                INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, apns_sandbox, application_id,
                                           created_at, updated_at)
                SELECT '\(try Fixture.device(n).text)', id, '\(msisdn.e164)', 'iOS', 'token-\(n)', '\(status)', true,
                       'ABCDE12345.com.acme.app', 0, 0
                FROM apps WHERE app_key = '\(app.key.text)'
                """)
        }
        let found = try await database.registrations(app: directory.first.key, msisdns: [one, try Fixture.msisdn(3), one])
        #expect(found.keys.sorted { $0.e164 < $1.e164 } == [one])
        #expect(Set(found[one]?.map(\.deviceID) ?? []) == [try Fixture.device(1), try Fixture.device(2)])
        let first = try #require(found[one]?.first { $0.deviceID == (try? Fixture.device(1)) })
        #expect(first == Registration(deviceID: try Fixture.device(1), app: directory.first.key, msisdn: one, platform: .iOS,
                                      pushToken: PushToken("token-1"), status: .pinVerified, notificationsEnabled: true,
                                      apnsSandbox: true, apnsTopic: "com.acme.app"))
        #expect(try await database.registrations(app: directory.first.key, msisdns: []).isEmpty)
        #expect(try await database.registrations(app: AppKey(try Directory.unknown()), msisdns: [one]).isEmpty)
        #expect(try await database.registration(app: directory.first.key, device: try Fixture.device(3))?.msisdn == two)
        #expect(try await database.registration(app: directory.second.key, device: try Fixture.device(3)) == nil, "another app's")

        try await directory.store.execute("UPDATE apps SET sender_id = 'acme' WHERE app_key = '\(directory.first.key.text)'")
        #expect(try await database.app(account: directory.acme.productToken, senderID: "acme")?.key == directory.first.key)
        #expect(try await database.app(account: directory.globex.productToken, senderID: "acme") == nil)
        #expect(try await database.app(account: directory.acme.productToken, senderID: "other") == nil)
        await directory.close()
    }

    @Test("a push address becomes one registration of its app, found again by its token; an unknown app is refused",
          arguments: Backend.allCases)
    func pushAddresses(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let registry: any PushAddressRegistry = directory.database
        let token = try #require(PushToken("addressed-token"))
        let created = try await registry.addressedRegistration(app: directory.first.key, platform: .android, token: token, at: Fixture.t0)
        #expect(created.app == directory.first.key && created.pushToken == token && created.status == .unverified)
        #expect(created.msisdn == nil && created.notificationsEnabled && created.platform == .android)
        let again = try await registry.addressedRegistration(app: directory.first.key, platform: .iOS, token: token,
                                                             at: Fixture.t0 + .seconds(1))
        #expect(again == created)
        let elsewhere = try await registry.addressedRegistration(app: directory.second.key, platform: .android, token: token,
                                                                 at: Fixture.t0)
        #expect(elsewhere.deviceID != created.deviceID)
        #expect(try await directory.database.registration(created.deviceID)?.pushToken == token)
        await #expect(throws: (any Error).self) {
            try await registry.addressedRegistration(app: AppKey(try Directory.unknown()), platform: .android, token: token,
                                                     at: Fixture.t0)
        }
        #expect(try await directory.store.count("registrations") == 2)
        await directory.close()
    }

    @Test("a sender sees its own messages only, oldest first, with each recipient's snapshot, events and queued numbers",
          arguments: Backend.allCases)
    func messageViews(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        let acme = directory.acme.productToken
        let queued = [try Fixture.msisdn(7), try Fixture.msisdn(8)]
        let key = try await directory.send(1, app: directory.first, reference: "order", msisdn: Fixture.msisdn(1), spool: queued)
        try await directory.send(2, reference: "order", msisdn: Fixture.msisdn(2), createdAt: Fixture.t0 + .seconds(1))
        try await directory.send(3, account: directory.globex, reference: "order", msisdn: Fixture.msisdn(3))
        var delivery = try #require(try await directory.store.deliveries.loadInFlight().first { $0.key == key }).delivery
        let change = Fixture.change(&delivery, key: key, .deliveryAcknowledged(try Fixture.device(1)), at: Fixture.t0 + .seconds(2))
        _ = try await directory.store.deliveries.commit(inserts: [], changes: [change])

        let view = try #require(try await database.message(account: acme, id: try Fixture.guid(1)))
        #expect(view.id == (try Fixture.guid(1)) && view.reference == "order" && view.sender == "Tandem" && view.body == "message 1")
        #expect(view.appKey == directory.first.key && view.messageType == .default && view.createdAt == Fixture.t0)
        #expect(view.api == "cm" && view.extra == nil && view.fallbackFor == nil)
        #expect(view.queued == queued)
        #expect(view.recipients.map(\.key) == [key])
        #expect(view.recipients.first?.delivery == delivery)
        #expect(view.recipients.first?.updatedAt == Fixture.t0 + .seconds(2))
        #expect(view.recipients.first?.events.map(\.at) == [Fixture.t0, Fixture.t0 + .seconds(2)])
        #expect(try await database.message(account: acme, id: try Fixture.guid(3)) == nil, "another account's")
        #expect(try await database.message(account: ProductToken(try Directory.unknown()), id: try Fixture.guid(1)) == nil)
        let listed = try await database.messages(account: acme, reference: "order")
        #expect(listed.map(\.id) == [try Fixture.guid(1), try Fixture.guid(2)])
        #expect(listed.first == view)
        #expect(try await database.messages(account: acme, reference: "none").isEmpty)
        #expect(try await database.queuedSpoolRecipients() == 2)
        await directory.close()
    }

    @Test("the search finds across accounts, newest first, at most `limit`; by number only that number's recipients",
          arguments: Backend.allCases)
    func search(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let search: any MessageSearch = directory.database
        let shared = try Fixture.msisdn(1)
        try await directory.send(1, reference: "order", msisdn: shared, spool: [try Fixture.msisdn(5)])
        try await directory.send(2, account: directory.globex, reference: "order", msisdn: try Fixture.msisdn(2))
        try await directory.send(3, reference: "other", msisdn: shared)
        let byReference = try await search.search(.reference("order"), limit: 10)
        #expect(byReference.map(\.message.id) == [try Fixture.guid(2), try Fixture.guid(1)])
        #expect(byReference.map(\.accountName) == ["Globex", "Acme"])
        #expect(byReference.map(\.recipientCount) == [1, 2])
        #expect(byReference.last?.message.queued == [try Fixture.msisdn(5)])
        #expect(try await search.search(.reference("order"), limit: 1).map(\.message.id) == [try Fixture.guid(2)])
        let byID = try await search.search(.id(try Fixture.guid(3)), limit: 10)
        #expect(byID.map(\.message.id) == [try Fixture.guid(3)] && byID.first?.message.reference == "other")
        #expect(try await search.search(.id(try Directory.unknown()), limit: 10).isEmpty)
        let byNumber = try await search.search(.msisdn(shared), limit: 10)
        #expect(byNumber.map(\.message.id) == [try Fixture.guid(3), try Fixture.guid(1)])
        #expect(byNumber.allSatisfy { $0.message.recipients.map(\.recipient) == [.msisdn(shared)] && $0.message.queued.isEmpty })
        #expect(byNumber.map(\.recipientCount) == [1, 1])
        #expect(try await search.search(.msisdn(shared), limit: 1).count == 1)
        #expect(try await search.search(.msisdn(try Fixture.msisdn(5)), limit: 10).isEmpty, "still queued")
        await directory.close()
    }
}
