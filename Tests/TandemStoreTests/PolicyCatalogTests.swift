import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore
@testable import TandemStoreSupport

@Suite("Policies stored once")
struct PolicyCatalogTests {
    /// The JSON value a snapshot holds for its policy: the plan's for a push, the route's otherwise.
    static func policyValue(_ snapshot: String) throws -> Any? {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(snapshot.utf8)) as? [String: Any])
        return (object["plan"] as? [String: Any])?["policy"] ?? object["policy"]
    }

    /// An OTP push to device `n` of number `n`.
    static func otp(_ n: Int) throws -> NewDeliveryRecord {
        try Fixture.pushed(to: [Fixture.device(n)], policy: Fixture.otp, msisdn: Fixture.msisdn(n), content: Fixture.content(n))
    }

    static func snapshots(_ store: Store) throws -> [String] {
        try rows(store, "SELECT snapshot FROM deliveries ORDER BY id").map { try $0.get("snapshot", as: String.self) }
    }

    @Test("a policy is spelled out until its row has committed, then named by its number; both read back equal")
    func spelledOutThenNumbered() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            let first = try Self.otp(1)
            let alsoFirst = try Self.otp(2)
            _ = try await deliveries.commit(inserts: [first, alsoFirst], changes: [])
            // One row for the one policy, though two snapshots of the commit spelled it out.
            let stored = try rows(store, "SELECT id, body FROM policies")
            #expect(stored.count == 1)
            let number = try #require(stored.first).get("id", as: Int64.self)
            #expect(try JSONDecoder().decode(Policy.self, from: Data(try #require(stored.first).get("body", as: String.self).utf8)) == Fixture.otp)
            #expect(store.policies.number(of: Fixture.otp) == number)
            #expect(try Self.snapshots(store).allSatisfy { try Self.policyValue($0) is [String: Any] })

            let later = try Self.otp(3)
            let sms = Fixture.routed(.sms(SMSRoute(reason: .noAppKey, policy: Fixture.critical)),
                                     msisdn: try Fixture.msisdn(4), content: try Fixture.content(4))
            _ = try await deliveries.commit(inserts: [later, sms], changes: [])
            let values = try Self.snapshots(store).map(Self.policyValue)
            #expect(values.count == 4)
            #expect((values[2] as? NSNumber)?.int64Value == number)  // committed before: named
            #expect(values[3] is [String: Any])  // Critical's row is written by this very commit: spelled out
            #expect(try tableCount(store, "policies") == 2)
            #expect(store.policies.number(of: Fixture.critical) != nil)

            // Both shapes load back as the deliveries they were written from.
            #expect(try await deliveries.loadInFlight().map(\.delivery) == [first, alsoFirst, later, sms].map(\.delivery))
            await store.close()
        }
    }

    @Test("a job that fails stores no policy row and teaches no number: later snapshots still spell it out")
    func failedJobTeachesNothing() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            let record = try Self.otp(1)
            var ghost = record.delivery
            let broken = Fixture.change(&ghost, key: DeliveryKey(999), .pushAccepted(try Fixture.device(1)),
                                        at: Fixture.t0 + .seconds(1))
            await #expect(throws: StoreError.self) {
                _ = try await deliveries.commit(inserts: [record], changes: [broken])
            }
            #expect(try tableCount(store, "policies") == 0)
            #expect(store.policies.number(of: Fixture.otp) == nil)

            _ = try await deliveries.commit(inserts: [record], changes: [])
            #expect(try Self.policyValue(try #require(try Self.snapshots(store).first)) is [String: Any])
            #expect(try tableCount(store, "policies") == 1)
            await store.close()
        }
    }

    @Test("a store that did not write a number reads it from the table (another process's rows)")
    func otherProcessReloads() async throws {
        try await withTemporaryDirectory { dir in
            let writer = try await openDeliveryStore(dir)
            let records = try (1...3).map(Self.otp)
            for record in records { _ = try await writer.commit(inserts: [record], changes: []) }
            #expect(try Self.snapshots(writer.store).compactMap { try Self.policyValue($0) as? NSNumber }.count == 2)

            let reader = try await openDeliveryStore(dir)
            #expect(reader.store.policies.count == 0)
            #expect(try await reader.loadInFlight().map(\.delivery) == records.map(\.delivery))
            #expect(reader.store.policies.number(of: Fixture.otp) == writer.store.policies.number(of: Fixture.otp))
            await reader.store.close()
            await writer.store.close()
        }
    }

    @Test("a number with no row is a decoding error naming the delivery and the number")
    func unknownNumber() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let record = try Self.otp(1)
            let key = try #require(try await deliveries.commit(inserts: [record], changes: []).first)
            let snapshot = try #require(try Self.snapshots(deliveries.store).first)
            var object = try #require(try JSONSerialization.jsonObject(with: Data(snapshot.utf8)) as? [String: Any])
            var plan = try #require(object["plan"] as? [String: Any])
            plan["policy"] = 77
            object["plan"] = plan
            let corrupt = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            try await deliveries.store.write { (db: Connection) throws(StoreError) in
                try db.run("UPDATE deliveries SET snapshot = ? WHERE id = ?", [.text(corrupt), .integer(key.rawValue)])
            }
            do {
                _ = try await deliveries.loadInFlight()
                Issue.record("a snapshot naming policy 77 loaded")
            } catch {
                #expect("\(error)".contains("delivery #\(key.rawValue)") && "\(error)".contains("number 77"), "\(error)")
            }
            await deliveries.store.close()
        }
    }

    @Test("at most its capacity of policies are named by number; one beyond it is spelled out, and every number resolves")
    func bounded() throws {
        let catalog = PolicyCatalog()
        let policies = (1...(PolicyCatalog.capacity + 5)).map { n in
            Policy(messageType: .default, pushTTL: .limited(.seconds(Int64(n))), pushPriority: .normal,
                   lifetime: .providerMaximum, fallback: .init(onPushFailure: false), manualFallback: .notAllowed)
        }
        catalog.learn(policies.enumerated().map { (policy: $1, number: Int64($0 + 1)) })
        #expect(catalog.count == PolicyCatalog.capacity)
        #expect(catalog.number(of: policies[0]) == 1)
        #expect(catalog.number(of: policies[PolicyCatalog.capacity]) == nil)
        // A snapshot another process wrote may name any row: resolving is not bounded.
        #expect(catalog.policy(numbered: Int64(PolicyCatalog.capacity + 1)) == policies[PolicyCatalog.capacity])

        let writer = SnapshotWriter(catalog: catalog)
        var delivery = Delivery(smsValidity: .seconds(60))
        _ = delivery.handle(.routed(.sms(SMSRoute(reason: .noAppKey, policy: policies[PolicyCatalog.capacity]))), now: Fixture.t0)
        #expect(try Self.policyValue(try writer.write(delivery)) is [String: Any])
    }
}
