import Foundation
import TandemCore
import Testing
import TandemTestSupport
@testable import TandemStore

@Suite("SQLite delivery store")
struct SQLiteDeliveryStoreTests {
    /// Critical-like, with distinct spans so every deadline column is told apart.
    static let staggered = Policy(messageType: .critical, pushTTL: .limited(.seconds(30)), pushPriority: .high,
                                  lifetime: .limited(.seconds(120)),
                                  fallback: .init(onPushFailure: true, afterNoDeliveryAck: .seconds(10), afterNoRead: .seconds(60)),
                                  manualFallback: .notAllowed)

    @Test("an insert loads back equal (key, msisdn, content, snapshot); derived columns follow state and timers")
    func insertRoundTrip() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let pushed = try Fixture.pushed(to: [Fixture.device(1), Fixture.device(2)], policy: Self.staggered,
                                            msisdn: Fixture.msisdn(1), content: Fixture.content(1, reference: "ref-1"))
            let otp = try Fixture.pushed(to: [Fixture.device(3)], policy: Fixture.otp, msisdn: Fixture.msisdn(2),
                                         content: Fixture.content(2))
            let keys = try await deliveries.commit(inserts: [pushed, otp], changes: [])
            #expect(keys.count == 2 && keys[0] < keys[1])

            let loaded = try await deliveries.loadInFlight()
            #expect(loaded.map(\.key) == keys)
            for (stored, record) in zip(loaded, [pushed, otp]) {
                #expect(stored.recipient == record.recipient)
                #expect(stored.content == record.content)
                #expect(stored.delivery == record.delivery)
            }

            let at = Fixture.t0.milliseconds
            let columns = try rows(deliveries.store, """
                SELECT state, status, channel, final, push_deadline, read_deadline, expires_at, created_at, updated_at
                FROM deliveries ORDER BY id
                """).map(\.values)
            #expect(columns == [
                [.text("pushing"), .text("Sent"), .null, .integer(0), .integer(at + 10_000), .integer(at + 60_000),
                 .integer(at + 120_000), .integer(at), .integer(at)],
                [.text("pushing"), .text("Sent"), .null, .integer(0), .null, .null, .integer(at + 30_000), .integer(at), .integer(at)],
            ])
            await deliveries.store.close()
        }
    }

    @Test("the SMS path keeps expires_at on the SMS's timer (validity + report wait) and ends with channel SMS")
    func smsPath() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let record = Fixture.routed(.sms(SMSRoute(reason: .noAppKey, policy: PolicySet.specDefaults.defaultPolicy)),
                                        msisdn: try Fixture.msisdn(1), content: try Fixture.content(1))
            let key = try #require(try await deliveries.commit(inserts: [record], changes: []).first)
            var delivery = record.delivery
            let submitted = Fixture.change(&delivery, key: key, .smsSubmitted(SMSSubmission(provider: "smpp", references: ["smsc-7", "smsc-8"])),
                                           at: Fixture.t0 + .seconds(1))
            _ = try await deliveries.commit(inserts: [], changes: [submitted])
            let pending = try rows(deliveries.store, "SELECT state, expires_at FROM deliveries").map(\.values)
            // Submitted at 1 s, validity 60 s, the default report wait 1 h.
            #expect(pending == [[.text("awaitingSMSReport"), .integer(Fixture.t0.milliseconds + 61_000 + 3_600_000)]])
            // Each part's id leads back to the delivery (also once it is final); ids are per provider.
            #expect(try await deliveries.deliveryKey(smsProvider: "smpp", reference: "smsc-8") == key)
            #expect(try await deliveries.deliveryKey(smsProvider: "kannel", reference: "smsc-8") == nil)
            #expect(try await deliveries.loadInFlight().first?.delivery.sms == SMSSubmission(provider: "smpp", references: ["smsc-7", "smsc-8"]))

            let report = Fixture.change(&delivery, key: key, .smsReportReceived(.delivered), at: Fixture.t0 + .seconds(3))
            _ = try await deliveries.commit(inserts: [], changes: [report])
            let done = try rows(deliveries.store, "SELECT state, status, channel, final, expires_at FROM deliveries").map(\.values)
            #expect(done == [[.text("final"), .text("Delivered"), .text("SMS"), .integer(1), .null]])
            #expect(try await deliveries.loadInFlight().isEmpty)
            #expect(try await deliveries.deliveryKey(smsProvider: "smpp", reference: "smsc-7") == key)
            await deliveries.store.close()
        }
    }

    @Test("recipients of one message share one messages row, within a commit, across commits and with a gateway row")
    func sharedMessageRow() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            let shared = try Fixture.content(7, reference: "batch")
            let recipients = try (1...3).map { n in
                try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: shared)
            }
            let other = try Fixture.pushed(to: [Fixture.device(9)], msisdn: Fixture.msisdn(9), content: Fixture.content(8))
            _ = try await deliveries.commit(inserts: recipients + [other], changes: [])
            #expect(try tableCount(store, "messages") == 2)

            _ = try await deliveries.commit(inserts: [try Fixture.pushed(to: [Fixture.device(4)], msisdn: Fixture.msisdn(4),
                                                                        content: shared)], changes: [])
            let perMessage = try rows(store, """
                SELECT m.message_id, m.sender, m.body, m.reference, count(*) FROM deliveries d JOIN messages m ON m.id = d.message_id
                GROUP BY m.id ORDER BY m.id
                """).map(\.values)
            #expect(perMessage == [
                [.text(shared.messageID.text), .text(shared.sender), .text(shared.body), .text("batch"), .integer(4)],
                [.text(try Fixture.guid(8).text), .text("Tandem"), .text(try Fixture.content(8).body), .null, .integer(1)],
            ])

            // A row the gateway inserted (with its account) is reused as it is.
            let gateway = try Fixture.content(20)
            try await store.write { db throws(StoreError) in
                try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('acme', 'token-1', 0)")
                try db.run("""
                    INSERT INTO messages (message_id, account_id, sender, body, allowed_channels, created_at)
                    VALUES (?, 1, 'Tandem', ?, 'Push', 5)
                    """, [.text(gateway.messageID.text), .text(gateway.body)])
            }
            let key = try #require(try await deliveries.commit(
                inserts: [try Fixture.pushed(to: [Fixture.device(5)], msisdn: Fixture.msisdn(5), content: gateway)], changes: []).first)
            let owner = try rows(store, "SELECT m.account_id, m.allowed_channels FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = ?",
                                 [.integer(key.rawValue)]).map(\.values)
            #expect(owner == [[.integer(1), .text("Push")]])
            #expect(try tableCount(store, "messages") == 3)
            await store.close()
        }
    }

    @Test("in-flight deliveries load by ranges of keys, in key order; final ones are skipped")
    func pagedLoad() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            #expect(try await deliveries.inFlightKeys() == nil)
            let shared = try Fixture.content(7, reference: "batch")
            let records = try (1...5).map { n in try Fixture.pushed(to: [Fixture.device(n)], msisdn: Fixture.msisdn(n), content: shared) }
            let keys = try await deliveries.commit(inserts: records, changes: [])
            // The second one is read: final, so no page holds it.
            var second = records[1].delivery
            _ = try await deliveries.commit(inserts: [], changes: [Fixture.change(&second, key: keys[1], .readReported(try Fixture.device(2)),
                                                                                 at: Fixture.t0 + .seconds(1))])
            #expect(try await deliveries.inFlightKeys() == keys[0]...keys[4])
            let first = try await deliveries.loadInFlight(in: keys[0]...keys[2])
            #expect(first.map(\.key) == [keys[0], keys[2]])
            let next = try await deliveries.loadInFlight(in: keys[3]...keys[4])
            #expect(next.map(\.key) == [keys[3], keys[4]])
            #expect(try await deliveries.loadInFlight(in: keys[1]...keys[1]).isEmpty)
            #expect((first + next).allSatisfy { $0.content == shared })
            #expect((first + next).map(\.delivery) == [records[0], records[2], records[3], records[4]].map(\.delivery))
            #expect(try await deliveries.loadInFlight().map(\.key) == [keys[0], keys[2], keys[3], keys[4]])
            await deliveries.store.close()
        }
    }

    @Test("commits reuse their buffers: each commit stores its own snapshots and rows, whatever the one before held")
    func reusedCommitBuffers() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            var inFlight: [(key: DeliveryKey, delivery: Delivery, device: DeviceID)] = []
            for round in 0..<8 {
                // Alternately five two-device pushes (long snapshots) and one one-device push (a short one) ...
                let devices = round % 2 == 0 ? [try Fixture.device(1), try Fixture.device(2)] : [try Fixture.device(3)]
                let records = try (0..<(round % 2 == 0 ? 5 : 1)).map { index in
                    try Fixture.pushed(to: devices, msisdn: Fixture.msisdn(round * 10 + index), content: Fixture.content(round * 10 + index))
                }
                // ... and the oldest delivery in flight read (final: it leaves loadInFlight).
                var changes: [DeliveryChange] = []
                if !inFlight.isEmpty {
                    var oldest = inFlight.removeFirst()
                    changes.append(Fixture.change(&oldest.delivery, key: oldest.key, .readReported(oldest.device),
                                                  at: Fixture.t0 + .seconds(Int64(round))))
                }
                let keys = try await deliveries.commit(inserts: records, changes: changes)
                inFlight += zip(keys, records).map { ($0, $1.delivery, devices[0]) }
                let loaded = try await deliveries.loadInFlight()
                #expect(loaded.map(\.key) == inFlight.map(\.key), "round \(round)")
                #expect(loaded.map(\.delivery) == inFlight.map(\.delivery), "round \(round): a snapshot differs")
            }
            let reads = try rows(deliveries.store, "SELECT count(*) FROM delivery_events WHERE kind = 'readReported'")
            #expect(reads.first?.values == [.integer(7)])
            let final = try rows(deliveries.store, "SELECT count(*) FROM deliveries WHERE final = 1 AND status = 'Read'")
            #expect(final.first?.values == [.integer(7)])
            await deliveries.store.close()
        }
    }

    @Test("a change to final leaves loadInFlight, sets the columns, logs events in order and queues one report")
    func finalChange() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            let device = try Fixture.device(1)
            let record = try Fixture.pushed(to: [device], msisdn: Fixture.msisdn(1), content: Fixture.content(1, reference: "order-42"))
            let key = try #require(try await deliveries.commit(inserts: [record], changes: []).first)
            var delivery = record.delivery

            let t1 = Fixture.t0 + .seconds(2)
            let ack = Fixture.change(&delivery, key: key, .deliveryAcknowledged(device), at: t1)
            _ = try await deliveries.commit(inserts: [], changes: [ack])
            #expect(try await deliveries.loadInFlight().map(\.delivery) == [delivery])
            let afterAck = try rows(store, "SELECT status, final, push_deadline, read_deadline FROM deliveries").map(\.values)
            let noRead = Fixture.t0.milliseconds + 30_000
            #expect(afterAck == [[.text("Delivered"), .integer(0), .integer(noRead), .integer(noRead)]])

            let t2 = Fixture.t0 + .seconds(5)
            let read = Fixture.change(&delivery, key: key, .readReported(device), at: t2)
            #expect(read.effects.report == .read)
            _ = try await deliveries.commit(inserts: [], changes: [read])
            #expect(try await deliveries.loadInFlight().isEmpty)

            let row = try #require(try rows(store, "SELECT * FROM deliveries").first)
            #expect(try row.get("state", as: String.self) == "final")
            #expect(try row.get("status", as: String.self) == "Read")
            #expect(try row.get("channel", as: String?.self) == "Push")
            #expect(try row.get("final", as: Bool.self))
            #expect(try row.get("push_deadline", as: Int64?.self) == nil)
            #expect(try row.get("expires_at", as: Int64?.self) == nil)
            #expect(try row.get("created_at", as: Int64.self) == Fixture.t0.milliseconds)
            #expect(try row.get("updated_at", as: Int64.self) == t2.milliseconds)
            let snapshot = try row.get("snapshot", as: String.self)
            #expect(try deliveries.store.policies.decoder().decode(Delivery.self, from: Data(snapshot.utf8)) == delivery)

            let events = try rows(store, "SELECT delivery_id, at, kind, detail FROM delivery_events ORDER BY id").map(\.values)
            #expect(events == [
                [.integer(key.rawValue), .integer(Fixture.t0.milliseconds), .text("routed"), .text("push to \(device.text) as Critical")],
                [.integer(key.rawValue), .integer(t1.milliseconds), .text("deliveryAcknowledged"), .text(device.text)],
                [.integer(key.rawValue), .integer(t2.milliseconds), .text("readReported"), .text(device.text)],
            ])

            let outbox = try rows(store, "SELECT delivery_id, url, payload, attempts, next_attempt_at, delivered_at FROM outbox")
            #expect(outbox.count == 1)
            let entry = try #require(outbox.first)
            #expect(entry.values[0] == .integer(key.rawValue) && entry.values[1] == .text(Fixture.webhookURL))
            #expect(entry.values[3...] == [.integer(0), .integer(t2.milliseconds), .null])
            // The payload holds the outcome; the relay reads the rest of the report from the stored delivery.
            #expect(try entry.get("payload", as: String.self) == #"{"at":\#(t2.milliseconds),"status":"Read","resolution":"readByPush","#
                    + #""channel":"Push","fallback":false,"smsCause":null,"rejectReason":null}"#)
            let due = try await SQLiteOutbox(store: store).dueReports(now: t2, limit: 10)
            #expect(due.map(\.content) == [.statusReport(StatusReportPayload(
                at: t2, acceptedAt: Fixture.t0, deliveryKey: key, messageID: try Fixture.guid(1), msisdn: record.recipient.storedText,
                reference: "order-42", status: .read, resolution: "readByPush", channel: .push))])
            await store.close()
        }
    }

    @Test("every report lands in the outbox exactly once; a late event touches only the event log")
    func reportsExactlyOnce() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            let (d1, d2) = (try Fixture.device(1), try Fixture.device(2))
            let rejected = Fixture.routed(.reject(.noPushableDevice), msisdn: try Fixture.msisdn(5), content: try Fixture.content(5))
            let first = try Fixture.pushed(to: [d1], msisdn: Fixture.msisdn(1), content: Fixture.content(1))
            let second = try Fixture.pushed(to: [d2], msisdn: Fixture.msisdn(2), content: Fixture.content(1))
            let keys = try await deliveries.commit(inserts: [rejected, first, second], changes: [])
            #expect(try await deliveries.loadInFlight().map(\.key) == Array(keys[1...]))

            var (a, b) = (first.delivery, second.delivery)
            let at = Fixture.t0 + .seconds(1)
            let changes = [Fixture.change(&a, key: keys[1], .readReported(d1), at: at),
                           Fixture.change(&b, key: keys[2], .readReported(d2), at: at)]
            _ = try await deliveries.commit(inserts: [], changes: changes)

            let outbox = try rows(store, "SELECT delivery_id, payload FROM outbox ORDER BY id")
            let payloads = try await SQLiteOutbox(store: store).dueReports(now: at, limit: 10).compactMap { item in
                if case .statusReport(let report) = item.content { report } else { nil }
            }
            #expect(payloads.map(\.deliveryKey) == keys)
            #expect(payloads[0].rejectReason == "noPushableDevice" && payloads[0].acceptedAt == Fixture.t0)
            #expect(payloads.map(\.status) == [.rejected, .read, .read])
            #expect(payloads[0].reference == nil)
            #expect(try outbox.map { row in try row.get("delivery_id", as: Int64.self) } == keys.map(\.rawValue))

            let updatedBefore = try rows(store, "SELECT updated_at, snapshot FROM deliveries WHERE id = ?", [.integer(keys[1].rawValue)])
            try await deliveries.appendLateEvents([(keys[1], .deliveryAcknowledged(d1))], at: at + .seconds(9))
            #expect(try tableCount(store, "outbox") == 3)
            #expect(try rows(store, "SELECT updated_at, snapshot FROM deliveries WHERE id = ?", [.integer(keys[1].rawValue)]) == updatedBefore)
            let late = try rows(store, "SELECT kind, detail, at FROM delivery_events WHERE delivery_id = ? ORDER BY id DESC LIMIT 1",
                                [.integer(keys[1].rawValue)]).map(\.values)
            #expect(late == [[.text("deliveryAcknowledged"), .text(d1.text), .integer((at + .seconds(9)).milliseconds)]])
            #expect(try tableCount(store, "delivery_events") == 6)
            await store.close()
        }
    }

    @Test("a dead token flips its registration to Invalid; an unknown device, or one with a newer token, is not")
    func invalidations() async throws {
        try await withTemporaryDirectory { dir in
            let deliveries = try await openDeliveryStore(dir)
            let store = deliveries.store
            let (d1, d2, d3, d4) = (try Fixture.device(1), try Fixture.device(2), try Fixture.device(3), try Fixture.device(4))
            try await insertRegistrations(store, devices: [d1, d3, d4])
            // d4's app sent a new token after the push went to the old one.
            try await store.write { db throws(StoreError) in
                try db.run("UPDATE registrations SET push_token = 'fresh-token' WHERE device_id = ?", [.text(d4.text)])
            }
            let record = try Fixture.pushed(to: [d1, d2, d4], msisdn: Fixture.msisdn(1), content: Fixture.content(1))
            let key = try #require(try await deliveries.commit(inserts: [record], changes: []).first)
            var delivery = record.delivery
            let at = Fixture.t0 + .seconds(1)
            let dead1 = Fixture.change(&delivery, key: key, .pushRejected(d1, .tokenDead), at: at)
            let dead2 = Fixture.change(&delivery, key: key, .pushRejected(d2, .tokenDead), at: at)
            let dead4 = Fixture.change(&delivery, key: key, .pushRejected(d4, .tokenDead), at: at)
            #expect(dead1.effects.invalidations == [d1] && dead2.effects.invalidations == [d2] && dead4.effects.invalidations == [d4])
            #expect(try store.registration(d1)?.status == .pinVerified)  // now in the registration cache
            _ = try await deliveries.commit(inserts: [], changes: [dead1, dead2, dead4])
            #expect(try store.registration(d1)?.status == .invalid, "the commit invalidated the cached registration")

            let registrations = try rows(store, "SELECT device_id, status, updated_at FROM registrations ORDER BY device_id").map(\.values)
            #expect(registrations == [[.text(d1.text), .text("Invalid"), .integer(at.milliseconds)],
                                      [.text(d3.text), .text("PinVerified"), .integer(0)],
                                      [.text(d4.text), .text("PinVerified"), .integer(0)]])
            #expect(try await deliveries.loadInFlight().map(\.delivery) == [delivery])
            #expect(delivery.state == .awaitingSMSSubmit)
            await store.close()
        }
    }
}

@Suite("Multi-row inserts")
struct MultiRowInsertTests {
    @Test("rows go in chunks of 64, 16, 4 and 1, every row once and in order", arguments: [0, 1, 3, 4, 5, 21, 64, 85, 150])
    func chunks(rows: Int) throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (seq INTEGER NOT NULL, label TEXT NOT NULL) STRICT")
        let values = (0..<rows).flatMap { [SQLValue.integer(Int64($0)), .text("row \($0)")] }
        try SQLiteDeliveryStore.insertRows("INSERT INTO t (seq, label)", columns: 2, values, on: db)
        let stored = try db.query("SELECT seq, label FROM t ORDER BY rowid").map(\.values)
        #expect(stored == (0..<rows).map { [.integer(Int64($0)), .text("row \($0)")] })
    }
}
