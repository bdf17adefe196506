import Foundation
import TandemCore
import Testing
@testable import TandemStore

@Suite("Recipient spool store")
struct RecipientSpoolStoreTests {
    @Test("allowed channels read back as written; anything else is refused")
    func allowedChannelsRoundTrip() {
        for channels in [AllowedChannels.all, .only([.sms]), .only([.push]), .only([.sms, .push]), .only([])] {
            #expect(AllowedChannels(storedText: channels.storedText) == channels)
        }
        #expect([AllowedChannels.all, .only([.push]), .only([.sms]), .only([.push, .sms]), .only([])].map(\.storedText)
                == [nil, #"["Push"]"#, #"["SMS"]"#, #"["Push","SMS"]"#, "[]"])
        for bad in ["", "SMS", "[SMS]", #"["Email"]"#, #"["SMS""#, #"["SMS",]"#] {
            #expect(AllowedChannels(storedText: bad) == nil, "\(bad)")
        }
    }

    @Test("a spool's numbers are sliced from its position; a list that does not match its total is a decoding error")
    func spooledRecipientsSlices() throws {
        let list = "+31600000001,+31600000002,+31600000003"
        #expect(try Store.spooledRecipients(list, total: 3, from: 1, limit: 1, message: "m").map(\.e164) == ["+31600000002"])
        #expect(try Store.spooledRecipients(list, total: 3, from: 1, limit: nil, message: "m").map(\.e164)
            == ["+31600000002", "+31600000003"])
        #expect(try Store.spooledRecipients(list, total: 3, from: 2, limit: 10, message: "m").count == 1)
        #expect(try Store.spooledRecipients(list, total: 3, from: 3, limit: nil, message: "m").isEmpty)
        #expect(throws: StoreError.self) { try Store.spooledRecipients(list, total: 4, from: 0, limit: nil, message: "m") }
        #expect(throws: StoreError.self) { try Store.spooledRecipients(list, total: 3, from: 4, limit: nil, message: "m") }
        #expect(throws: StoreError.self) { try Store.spooledRecipients("+316,x", total: 2, from: 0, limit: nil, message: "m") }
    }

    @Test("the schema keeps a spool's position inside it: started below total, total positive")
    func schemaChecks() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/spool.sqlite"))
            try await store.write { (db: Connection) throws(StoreError) in
                try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('A', 'x', 0)")
                try db.run("""
                    INSERT INTO messages (message_id, account_id, sender, body, allowed_channels, created_at)
                    VALUES ('m', 1, 's', 'b', '["SMS"]', 0)
                    """)
            }
            for (total, started) in [(0, 0), (2, 2), (2, -1)] {
                await #expect(throws: StoreError.self) {
                    try await store.write { (db: Connection) throws(StoreError) in
                        try db.run("INSERT INTO message_spools (message_id, recipients, total, started) VALUES (1, '', ?, ?)",
                                   [.integer(Int64(total)), .integer(Int64(started))])
                    }
                }
            }
            #expect(try store.queuedSpoolRecipients() == 0)
            #expect(try store.nextSpoolChunk(limit: 10, message: nil, afterQueue: nil) == nil)
            await store.close()
        }
    }

    @Test("the next spool is the oldest of the next account, wrapping around, found by index without sorting")
    func nextSpoolByQueue() async throws {
        try await withTemporaryDirectory { dir in
            let store = try Store.open(StoreConfiguration(path: dir + "/spool.sqlite"))
            try await store.write { (db: Connection) throws(StoreError) in
                try db.run("INSERT INTO accounts (name, product_token, created_at) VALUES ('A', 'a', 0), ('B', 'b', 0)")
                // Messages 1 and 3 from account 1, message 2 from account 2.
                for (index, account) in [1, 2, 1].enumerated() {
                    try db.run("""
                        INSERT INTO messages (message_id, account_id, sender, body, allowed_channels, created_at)
                        VALUES (?, ?, 's', 'b', '["SMS"]', 0)
                        """, [.text("0190a000-0000-7000-8000-00000000000\(index + 1)"), .integer(Int64(account))])
                    try SQLiteDeliveryStore.insertSpool(
                        RecipientSpool(messageID: GUID("0190a000-0000-7000-8000-00000000000\(index + 1)")!,
                                       recipients: [MSISDN("+3160000000\(index + 1)")!]),
                        messageRow: Int64(index + 1), on: db)
                }
            }
            let first = try #require(try store.nextSpoolChunk(limit: 10, message: nil, afterQueue: nil))
            #expect(first.queue == 1 && first.recipients.map(\.e164) == ["+31600000001"])
            let second = try #require(try store.nextSpoolChunk(limit: 10, message: nil, afterQueue: 1))
            #expect(second.queue == 2 && second.recipients.map(\.e164) == ["+31600000002"])
            let wrapped = try #require(try store.nextSpoolChunk(limit: 10, message: nil, afterQueue: 2))
            #expect(wrapped.queue == 1 && wrapped.recipients.map(\.e164) == ["+31600000001"])
            let plans = try store.read { (db: Connection) throws(StoreError) -> [String] in
                var details: [String] = []
                for after in [true, false] {
                    for row in try db.query("EXPLAIN QUERY PLAN " + Store.nextSpoolSQL(afterQueue: after), after ? [.integer(1)] : []) {
                        details.append(try row.get("detail", as: String.self))
                    }
                }
                return details
            }
            #expect(plans.contains { $0.contains("message_spools_queue") })
            #expect(!plans.contains { $0.contains("TEMP B-TREE") }, "\(plans)")
            await store.close()
        }
    }
}
