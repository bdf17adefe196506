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
}
