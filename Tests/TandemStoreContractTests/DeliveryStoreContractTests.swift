import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every `DeliveryStore` must do, whatever holds the rows: each test runs against SQLite and PostgreSQL.
@Suite("Delivery store contract")
struct DeliveryStoreContractTests {
    @Test("an insert loads back equal — key order, recipient, content, snapshot — and a final one does not load", arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) async throws {
        let store = try await backend.open()
        let pushed = try Fixture.pushed(to: [Fixture.device(1), Fixture.device(2)], msisdn: Fixture.msisdn(1),
                                        content: Fixture.content(1, reference: "order-1"))
        let rejected = Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(2), content: try Fixture.content(2))
        let sms = Fixture.routed(.sms(SMSRoute(reason: .noAppKey, policy: PolicySet.specDefaults.defaultPolicy)),
                                 msisdn: try Fixture.msisdn(3), content: try Fixture.content(3))
        let keys = try await store.deliveries.commit(inserts: [pushed, rejected, sms], changes: [])
        #expect(keys.count == 3 && keys == keys.sorted() && Set(keys).count == 3)
        let loaded = try await store.deliveries.loadInFlight()
        #expect(loaded.map(\.key) == [keys[0], keys[2]])
        #expect(loaded.map(\.delivery) == [pushed.delivery, sms.delivery])
        #expect(loaded.map(\.recipient) == [pushed.recipient, sms.recipient])
        #expect(loaded.map(\.content) == [pushed.content, sms.content])
        #expect(try await store.deliveries.inFlightKeys() == keys[0]...keys[2])
        // The rejected one is final at once: its report is queued.
        #expect(try await store.count("outbox") == 1)
        #expect(try await store.count("delivery_events") == 3)
        await store.close()
    }

    @Test("a partition's in-flight deliveries load alone: the keys congruent to it, in order, final ones left out", arguments: Backend.allCases)
    func partitionLoad(_ backend: Backend) async throws {
        let store = try await backend.open()
        let records = try (1...6).map { n in
            n == 3 ? Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(n), content: try Fixture.content(n))
                   : try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
        }
        let keys = try await store.deliveries.commit(inserts: records, changes: [])
        let map = try PartitionMap(count: 2)
        let even = keys.enumerated().filter { $0.offset != 2 && map.partition(of: $0.element) == 0 }.map(\.element)
        let odd = keys.enumerated().filter { $0.offset != 2 && map.partition(of: $0.element) == 1 }.map(\.element)
        #expect(try await store.deliveries.loadInFlight(partition: 0, of: map).map(\.key) == even)
        #expect(try await store.deliveries.loadInFlight(partition: 1, of: map).map(\.key) == odd)
        await store.close()
    }

    @Test("a change to final leaves the in-flight set, logs its events in order and queues one report with the stored values",
          arguments: Backend.allCases)
    func finalChange(_ backend: Backend) async throws {
        let store = try await backend.open()
        let device = try Fixture.device(1)
        let record = try Fixture.pushed(to: [device], msisdn: Fixture.msisdn(1), content: Fixture.content(1, reference: "order-42"))
        let key = try #require(try await store.deliveries.commit(inserts: [record], changes: []).first)
        var delivery = record.delivery
        let t1 = Fixture.t0 + .seconds(2), t2 = Fixture.t0 + .seconds(5)
        _ = try await store.deliveries.commit(inserts: [], changes: [Fixture.change(&delivery, key: key, .deliveryAcknowledged(device), at: t1)])
        #expect(try await store.deliveries.loadInFlight().map(\.delivery) == [delivery])
        let read = Fixture.change(&delivery, key: key, .readReported(device), at: t2)
        _ = try await store.deliveries.commit(inserts: [], changes: [read])
        #expect(try await store.deliveries.loadInFlight().isEmpty)
        #expect(try await store.deliveries.inFlightKeys() == nil)
        #expect(try await store.count("delivery_events") == 3)
        #expect(try await store.outboxPayloads().count == 1)
        // The relay's read: the outcome queued by the commit, with what is stored of the delivery and its message.
        let due = try await store.outbox.dueReports(now: t2, limit: 10)
        #expect(due.map(\.content) == [.statusReport(StatusReportPayload(
            at: t2, acceptedAt: Fixture.t0, deliveryKey: key, messageID: try Fixture.guid(1), msisdn: record.recipient.storedText,
            reference: "order-42", status: .read, resolution: "readByPush", channel: .push))])
        #expect(due.map(\.url) == [Fixture.webhookURL])
        await store.close()
    }

    @Test("an SMS's part ids lead back to its delivery, final or not; ids are per provider, the newest wins", arguments: Backend.allCases)
    func providerReferences(_ backend: Backend) async throws {
        let store = try await backend.open()
        func smsRecord(_ n: Int) throws -> NewDeliveryRecord {
            Fixture.routed(.sms(SMSRoute(reason: .noAppKey, policy: PolicySet.specDefaults.defaultPolicy)),
                           msisdn: try Fixture.msisdn(n), content: try Fixture.content(n))
        }
        let first = try smsRecord(1), second = try smsRecord(2)
        let keys = try await store.deliveries.commit(inserts: [first, second], changes: [])
        var one = first.delivery, two = second.delivery
        let submitted = Fixture.change(&one, key: keys[0], .smsSubmitted(SMSSubmission(provider: "smpp", references: ["a", "b"])),
                                       at: Fixture.t0 + .seconds(1))
        _ = try await store.deliveries.commit(inserts: [], changes: [submitted])
        #expect(try await store.deliveries.deliveryKey(smsProvider: "smpp", reference: "b") == keys[0])
        #expect(try await store.deliveries.deliveryKey(smsProvider: "kannel", reference: "b") == nil)
        let reused = Fixture.change(&two, key: keys[1], .smsSubmitted(SMSSubmission(provider: "smpp", references: ["b"])),
                                    at: Fixture.t0 + .seconds(2))
        let delivered = Fixture.change(&one, key: keys[0], .smsReportReceived(.delivered), at: Fixture.t0 + .seconds(3))
        _ = try await store.deliveries.commit(inserts: [], changes: [reused, delivered])
        #expect(try await store.deliveries.deliveryKey(smsProvider: "smpp", reference: "a") == keys[0])
        #expect(try await store.deliveries.deliveryKey(smsProvider: "smpp", reference: "b") == keys[1])
        #expect(try await store.deliveries.loadInFlight().map(\.key) == [keys[1]])
        await store.close()
    }

    @Test("recipients of one message share its messages row, within a commit and across commits", arguments: Backend.allCases)
    func sharedMessageRow(_ backend: Backend) async throws {
        let store = try await backend.open()
        let content = try Fixture.content(7)
        let a = try Fixture.pushed(to: [Fixture.device(1)], msisdn: Fixture.msisdn(1), content: content)
        let b = try Fixture.pushed(to: [Fixture.device(2)], msisdn: Fixture.msisdn(2), content: content)
        let c = try Fixture.pushed(to: [Fixture.device(3)], msisdn: Fixture.msisdn(3), content: content)
        _ = try await store.deliveries.commit(inserts: [a, b], changes: [])
        _ = try await store.deliveries.commit(inserts: [c], changes: [])
        #expect(try await store.count("messages") == 1)
        #expect(try await store.count("deliveries") == 3)
        #expect(Set(try await store.deliveries.loadInFlight().map(\.content)) == [content])
        await store.close()
    }

    @Test("a commit whose change names a missing key fails whole — inserts, events and reports included; so do late events",
          arguments: Backend.allCases)
    func missingKeyFailsWhole(_ backend: Backend) async throws {
        let store = try await backend.open()
        let kept = try Fixture.pushed(to: [Fixture.device(1)], msisdn: Fixture.msisdn(1), content: Fixture.content(1))
        let keptKey = try #require(try await store.deliveries.commit(inserts: [kept], changes: []).first)
        let before = try await store.counts()
        let rejected = Fixture.routed(.reject(.noAppKey), msisdn: try Fixture.msisdn(2), content: try Fixture.content(2))
        var ghost = kept.delivery
        let change = Fixture.change(&ghost, key: DeliveryKey(9_999), .readReported(try Fixture.device(1)), at: Fixture.t0)
        await #expect(throws: (any Error).self) { try await store.deliveries.commit(inserts: [rejected], changes: [change]) }
        #expect(try await store.counts() == before)
        await #expect(throws: (any Error).self) {
            try await store.deliveries.appendLateEvents([(keptKey, .expired), (DeliveryKey(9_999), .expired)], at: Fixture.t0)
        }
        #expect(try await store.counts() == before)
        try await store.deliveries.appendLateEvents([(keptKey, .expired)], at: Fixture.t0)
        #expect(try await store.count("delivery_events") == before["delivery_events"]! + 1)
        #expect(try await store.deliveries.loadInFlight().map(\.delivery) == [kept.delivery])
        await store.close()
    }

    @Test("on one chain, a failed commit fails the later ones unapplied; another chain's commits are unaffected",
          arguments: Backend.allCases)
    func brokenChain(_ backend: Backend) async throws {
        let store = try await backend.open()
        func record(_ n: Int) throws -> NewDeliveryRecord {
            try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
        }
        var ghost = try record(0).delivery
        let missing = Fixture.change(&ghost, key: DeliveryKey(9_999), .expired, at: Fixture.t0)
        let chain = CommitChain()
        let first = store.deliveries.queueCommit(requests: [], inserts: [try record(1)], changes: [], chain: chain)
        let failing = store.deliveries.queueCommit(requests: [], inserts: [try record(2)], changes: [missing], chain: chain)
        let later = store.deliveries.queueCommit(requests: [], inserts: [try record(3)], changes: [], chain: chain)
        let elsewhere = store.deliveries.queueCommit(requests: [], inserts: [try record(4)], changes: [], chain: CommitChain())
        #expect(try await first.keys().count == 1)
        await #expect(throws: (any Error).self) { try await failing.keys() }
        await #expect(throws: (any Error).self) { try await later.keys() }
        #expect(try await elsewhere.keys().count == 1)
        #expect(chain.isBroken)
        #expect(try await store.count("deliveries") == 2)
        await store.close()
    }

    @Test("64 concurrent commits all succeed, each with its own key, and every row is there", arguments: Backend.allCases)
    func concurrentCommits(_ backend: Backend) async throws {
        let store = try await backend.open()
        let keys = try await withThrowingTaskGroup(of: [DeliveryKey].self) { group in
            for n in 0..<64 {
                let record = try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
                group.addTask { try await store.deliveries.commit(inserts: [record], changes: []) }
            }
            return try await group.reduce(into: [DeliveryKey]()) { $0 += $1 }
        }
        #expect(Set(keys).count == 64)
        #expect(try await store.counts() == ["messages": 64, "deliveries": 64, "delivery_events": 64, "outbox": 0])
        #expect(try await store.deliveries.loadInFlight().count == 64)
        await store.close()
    }

    @Test("a store opened again on the same database loads every delivery in flight as it was", arguments: Backend.allCases)
    func reopen(_ backend: Backend) async throws {
        let store = try await backend.open()
        let records = try (1...5).map { n in
            try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
        }
        let keys = try await store.deliveries.commit(inserts: records, changes: [])
        var delivery = records[1].delivery
        _ = try await store.deliveries.commit(inserts: [], changes: [Fixture.change(&delivery, key: keys[1], .expired, at: Fixture.t0 + .seconds(60))])
        let again = try await store.reopen()
        let loaded = try await again.deliveries.loadInFlight()
        #expect(loaded.map(\.key) == [keys[0], keys[2], keys[3], keys[4]])
        #expect(loaded.map(\.delivery) == [records[0], records[2], records[3], records[4]].map(\.delivery))
        #expect(try await again.count("outbox") == 1)
        await again.close()
    }
}

@Suite("Delivery store contract: BWMI acknowledgements in a commit")
struct BWMIAcknowledgementContractTests {
    @Test("an acknowledgement marks the live row and counts what stays live; again it finds it acknowledged; no row: one is added",
          arguments: Backend.allCases)
    func acknowledgements(_ backend: Backend) async throws {
        let store = try await backend.open()
        let device = try Fixture.device(1)
        let keys = try await store.deliveries.commit(inserts: try (1...3).map { n in
            try Fixture.pushed(to: [device], msisdn: Fixture.msisdn(n), content: Fixture.content(n))
        }, changes: [])
        try await store.execute("INSERT INTO apps (account_id, name, app_key, app_secret, created_at) VALUES (1, 'app', 'k', 's', 0)")
        try await store.execute("""
            INSERT INTO registrations (device_id, app_id, platform, status, created_at, updated_at)
            VALUES ('\(device.text)', 1, 'iOS', 'PinVerified', 0, 0)
            """)
        for key in keys.prefix(2) {
            try await store.execute("""
                INSERT INTO bwmi_notifications (delivery_id, registration_id, sent_at, expires_at)
                VALUES (\(key.rawValue), 1, 0, \(Fixture.t0.milliseconds + 3_600_000))
                """)
        }
        func acknowledge(_ key: DeliveryKey, _ device: DeviceID) async throws -> BWMIAcknowledgementWrite {
            let write = BWMIAcknowledgementWrite(delivery: key, device: device, at: Fixture.t0)
            #expect(try await store.deliveries.queueCommit(requests: [], inserts: [], changes: [], acknowledgements: [write],
                                                           chain: CommitChain()).keys() == [])
            return write
        }
        let first = try await acknowledge(keys[0], device)
        #expect(first.outcome == .acknowledged && first.liveCount == 1)
        let again = try await acknowledge(keys[0], device)
        #expect(again.outcome == .alreadyAcknowledged && again.liveCount == nil)
        let stranger = try await acknowledge(keys[1], try Fixture.device(9))
        #expect(stranger.outcome == .unknown)
        let unrecorded = try await acknowledge(keys[2], device)
        #expect(unrecorded.outcome == .acknowledged && unrecorded.liveCount == 1)
        #expect(try await store.count("bwmi_notifications") == 3)
        let last = try await acknowledge(keys[1], device)
        #expect(last.outcome == .acknowledged && last.liveCount == 0)
        await store.close()
    }
}
