import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every store must do with idempotency keys (``IdempotencyKeys``) and recipient spools
/// (``RecipientSpoolStore``); each test runs against SQLite and PostgreSQL.
@Suite("Idempotency and spool contract")
struct IdempotencySpoolContractTests {
    @Test("a key is claimed once per account; the holder is answered; a stale claim is taken over once; release frees it",
          arguments: Backend.allCases)
    func claims(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let keys: any IdempotencyKeys = directory.database
        let acme = directory.acme.productToken, globex = directory.globex.productToken
        #expect(try await keys.claimIdempotencyKey(account: acme, key: "k1", digest: "d1", at: Fixture.t0) == .claimed)
        #expect(try await keys.claimIdempotencyKey(account: globex, key: "k1", digest: "d2", at: Fixture.t0) == .claimed, "per account")
        let held = try await keys.claimIdempotencyKey(account: acme, key: "k1", digest: "d3", at: Fixture.t0 + .seconds(1))
        #expect(held == .held(IdempotencyRecord(account: acme, key: "k1", requestDigest: "d1", status: 0, contentType: "",
                                                body: [], createdAt: Fixture.t0)))
        #expect(!(try await keys.takeOverIdempotencyKey(account: acme, key: "k1", claimedAt: Fixture.t0 + .seconds(1),
                                                       at: Fixture.t0 + .seconds(2))), "not the claim's time")
        #expect(try await keys.takeOverIdempotencyKey(account: acme, key: "k1", claimedAt: Fixture.t0, at: Fixture.t0 + .seconds(2)))
        #expect(!(try await keys.takeOverIdempotencyKey(account: acme, key: "k1", claimedAt: Fixture.t0, at: Fixture.t0 + .seconds(3))))
        try await keys.releaseIdempotencyKey(account: acme, key: "k1")
        #expect(try await keys.claimIdempotencyKey(account: acme, key: "k1", digest: "d4", at: Fixture.t0 + .seconds(4)) == .claimed)
        await #expect(throws: (any Error).self) {
            try await keys.claimIdempotencyKey(account: ProductToken(try Directory.unknown()), key: "k1", digest: "d", at: Fixture.t0)
        }
        #expect(try await directory.database.purgeIdempotencyKeys(createdBefore: Fixture.t0 + .seconds(1)) == 1)
        #expect(try await directory.store.count("idempotency_keys") == 1)
        await directory.close()
    }

    @Test("a request completes its claim with its reply in its commit; a key held by another request fails that commit alone",
          arguments: Backend.allCases)
    func completion(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let keys: any IdempotencyKeys = directory.database
        let acme = directory.acme.productToken
        #expect(try await keys.claimIdempotencyKey(account: acme, key: "k1", digest: "d1", at: Fixture.t0) == .claimed)
        let reply = IdempotencyRecord(account: acme, key: "k1", requestDigest: "d1", status: 202, contentType: "application/json",
                                      body: Array(#"{"ok":true}"#.utf8) + [0, 255], createdAt: Fixture.t0 + .seconds(1))
        _ = try await directory.store.deliveries.commit(requests: [AcceptedRequest(idempotency: reply)], inserts: [], changes: [])
        #expect(try await keys.claimIdempotencyKey(account: acme, key: "k1", digest: "d1", at: Fixture.t0 + .seconds(2))
                == .held(reply))
        // Another request's digest, or a completed key: the commit fails, and stores nothing.
        #expect(try await keys.claimIdempotencyKey(account: acme, key: "k2", digest: "d2", at: Fixture.t0) == .claimed)
        let content = try Fixture.content(5)
        let record = MessageRecord(content: content, account: acme, appKey: nil, bodyType: "Auto", messageType: .default,
                                   allowedChannels: .all, validUntil: nil, customGroupings: [], dcs: nil, richContent: nil,
                                   fallbackFor: nil, createdAt: Fixture.t0)
        for stolen in [IdempotencyRecord(account: acme, key: "k2", requestDigest: "other", status: 202, contentType: "", body: [],
                                         createdAt: Fixture.t0), reply] {
            await #expect(throws: (any Error).self) {
                try await directory.store.deliveries.commit(requests: [AcceptedRequest(messages: [record], idempotency: stolen)],
                                                            inserts: [], changes: [])
            }
        }
        #expect(try await directory.store.count("messages") == 0)
        await directory.close()
    }

    @Test("a spool hands out its recipients in order, queue by queue, and is gone after its last; progress must continue it",
          arguments: Backend.allCases)
    func spools(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let spools: any RecipientSpoolStore = directory.database
        #expect(try await spools.nextSpoolChunk(limit: 10, message: nil, afterQueue: nil) == nil)
        let numbers = try (10..<15).map { try Fixture.msisdn($0) }
        try await directory.send(1, msisdn: Fixture.msisdn(1), spool: numbers)
        try await directory.send(2, account: directory.globex, msisdn: Fixture.msisdn(2), spool: [try Fixture.msisdn(20)])
        try await directory.send(3, msisdn: Fixture.msisdn(3), spool: [try Fixture.msisdn(30)])
        #expect(try await directory.database.queuedSpoolRecipients() == 7)

        let first = try #require(try await spools.nextSpoolChunk(limit: 2, message: nil, afterQueue: nil))
        #expect(first.content.messageID == (try Fixture.guid(1)) && first.first == 0 && first.total == 5)
        #expect(first.recipients == Array(numbers[0..<2]))
        #expect(first.routing.allowedChannels == .all && first.routing.messageType == .default && first.validUntil == nil)
        let second = try #require(try await spools.nextSpoolChunk(limit: 2, message: nil, afterQueue: first.queue))
        #expect(second.content.messageID == (try Fixture.guid(2)) && second.queue != first.queue)
        let wrapped = try #require(try await spools.nextSpoolChunk(limit: 2, message: nil, afterQueue: second.queue))
        #expect(wrapped.content.messageID == (try Fixture.guid(1)), "the oldest spool of the first queue")

        _ = try await directory.store.deliveries.commit(requests: [AcceptedRequest(spoolProgress: [first.progress])],
                                                        inserts: [], changes: [])
        let next = try #require(try await spools.nextSpoolChunk(limit: 10, message: try Fixture.guid(1), afterQueue: nil))
        #expect(next.first == 2 && next.recipients == Array(numbers[2...]))
        // Progress that does not continue the stored position fails.
        await #expect(throws: (any Error).self) {
            try await directory.store.deliveries.commit(requests: [AcceptedRequest(spoolProgress: [first.progress])],
                                                        inserts: [], changes: [])
        }
        _ = try await directory.store.deliveries.commit(requests: [AcceptedRequest(spoolProgress: [next.progress])],
                                                        inserts: [], changes: [])
        #expect(try await spools.nextSpoolChunk(limit: 10, message: try Fixture.guid(1), afterQueue: nil) == nil, "gone")
        #expect(try await directory.database.queuedSpoolRecipients() == 2)
        await directory.close()
    }
}
