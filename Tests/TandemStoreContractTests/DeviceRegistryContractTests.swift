import Foundation
import Testing
import TandemCore
import TandemStore
import TandemPostgres
import TandemTestSupport

/// What every store must do for the device API (`DeviceRegistry`): registrations, receipts' targets and the
/// inbox; each test runs against SQLite and PostgreSQL.
@Suite("Device registry contract")
struct DeviceRegistryContractTests {
    static func registration(_ n: Int, app: App, token: String?, at: Timestamp = Fixture.t0) throws -> DeviceRegistration {
        DeviceRegistration(deviceID: try Fixture.device(n), app: app.key, platform: .android, userAgent: "sdk/\(n)",
                           pushToken: token.flatMap(PushToken.init), notificationsEnabled: true, verification: Verification(),
                           createdAt: at, updatedAt: at)
    }

    @Test("a registration reads back as created; a device id is unique; an unknown app is refused", arguments: Backend.allCases)
    func create(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        var registration = try Self.registration(1, app: directory.first, token: "token-1")
        registration.apnsSandbox = true
        try await database.create(registration)
        #expect(try await database.registration(registration.deviceID) == registration)
        #expect(try await database.registration(try Fixture.device(9)) == nil)
        let again = await #expect(throws: (any Error).self) { try await database.create(registration) }
        #expect(again.map(isUniqueViolation) == true)
        let orphan = DeviceRegistration(deviceID: try Fixture.device(2), app: AppKey(try Directory.unknown()), platform: .iOS,
                                        userAgent: "", pushToken: nil, notificationsEnabled: true, verification: Verification(),
                                        createdAt: Fixture.t0, updatedAt: Fixture.t0)
        await #expect(throws: (any Error).self) { try await database.create(orphan) }
        #expect(try await database.registration(orphan.deviceID) == nil)
        await directory.close()
    }

    @Test("an update changes what the next read sees (no stale cached copy), returns the change's result, nil for no such device",
          arguments: Backend.allCases)
    func update(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        let registration = try Self.registration(1, app: directory.first, token: "token-1")
        try await database.create(registration)
        #expect(try await database.registration(registration.deviceID)?.status == .unverified)  // read: cached, if cached
        let msisdn = try Fixture.msisdn(1)
        let challenge = PinChallenge(nonce: "nonce-1", msisdn: msisdn, issuedAt: Fixture.t0,
                                     expiresAt: Fixture.t0 + .seconds(600), attempts: 2, pinLength: 6)
        let answer = try await database.update(registration.deviceID) { (stored: inout DeviceRegistration) -> String in
            stored.verification = Verification(status: .waitingForPin, msisdn: msisdn, challenge: challenge)
            stored.userAgent = "sdk/2"
            stored.notificationsEnabled = false
            stored.updatedAt = Fixture.t0 + .seconds(1)
            return "changed"
        }
        #expect(answer == "changed")
        let stored = try #require(try await database.registration(registration.deviceID))
        #expect(stored.verification == Verification(status: .waitingForPin, msisdn: msisdn, challenge: challenge))
        #expect(stored.userAgent == "sdk/2" && !stored.notificationsEnabled && stored.updatedAt == Fixture.t0 + .seconds(1))
        #expect(try await database.registration(app: directory.first.key, device: registration.deviceID)?.notificationsEnabled == false)
        let none = try await database.update(try Fixture.device(9)) { (_: inout DeviceRegistration) in 1 }
        #expect(none == nil)
        await directory.close()
    }

    @Test("a push token held by another install of the same app moves to the one that takes it; other apps keep theirs",
          arguments: Backend.allCases)
    func tokenMoves(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        try await database.create(try Self.registration(1, app: directory.first, token: "shared"))
        try await database.create(try Self.registration(2, app: directory.second, token: "shared"))
        try await database.create(try Self.registration(3, app: directory.first, token: "shared"))
        #expect(try await database.registration(try Fixture.device(1))?.pushToken == nil, "lost to device 3")
        #expect(try await database.registration(try Fixture.device(2))?.pushToken == PushToken("shared"), "another app")
        #expect(try await database.registration(try Fixture.device(3))?.pushToken == PushToken("shared"))
        _ = try await database.update(try Fixture.device(1)) { (stored: inout DeviceRegistration) in
            stored.pushToken = PushToken("shared")
        }
        #expect(try await database.registration(try Fixture.device(1))?.pushToken == PushToken("shared"))
        #expect(try await database.registration(try Fixture.device(3))?.pushToken == nil)
        await directory.close()
    }

    @Test("concurrent updates of one registration each see the other's result (none is lost)", arguments: Backend.allCases)
    func concurrentUpdates(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        let device = try Fixture.device(1)
        try await database.create(try Self.registration(1, app: directory.first, token: nil))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    _ = try await database.update(device) { (stored: inout DeviceRegistration) in
                        stored.userAgent += "+"
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await database.registration(device)?.userAgent == "sdk/1++++++++")
        await directory.close()
    }

    @Test("a receipt's target: the message's app, the recipient, finality and acceptance time; nil for no delivery",
          arguments: Backend.allCases)
    func receiptTarget(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let msisdn = try Fixture.msisdn(1)
        let key = try await directory.send(1, app: directory.first, msisdn: msisdn, createdAt: Fixture.t0 + .seconds(5))
        let target = try #require(try await directory.database.receiptTarget(key))
        #expect(target == ReceiptTarget(key: key, app: directory.first.key, recipient: .msisdn(msisdn), isFinal: false,
                                        createdAt: Fixture.t0 + .seconds(5)))
        let plain = try await directory.send(2, msisdn: msisdn)
        #expect(try await directory.database.receiptTarget(plain)?.app == nil)
        #expect(try await directory.database.receiptTarget(DeliveryKey(999_999)) == nil)
        await directory.close()
    }

    @Test("a dead token flips its registration to Invalid, read so at once (no stale copy); a newer token or an unknown device is not",
          arguments: Backend.allCases)
    func deadTokens(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        let (d1, d2, d3) = (try Fixture.device(1), try Fixture.device(2), try Fixture.device(3))
        for device in [d1, d3] {
            var registration = DeviceRegistration(deviceID: device, app: directory.first.key, platform: .iOS, userAgent: "",
                                                  pushToken: PushToken("token-\(device.text)"), notificationsEnabled: true,
                                                  verification: Verification(status: .pinVerified, msisdn: try Fixture.msisdn(1)),
                                                  createdAt: Fixture.t0, updatedAt: Fixture.t0)
            if device == d3 { registration.pushToken = PushToken("fresh-token") }  // a new token after the push
            try await database.create(registration)
        }
        let record = try Fixture.pushed(to: [d1, d2, d3], msisdn: Fixture.msisdn(1), content: Fixture.content(1))
        let key = try #require(try await directory.store.deliveries.commit(inserts: [record], changes: []).first)
        var delivery = record.delivery
        let at = Fixture.t0 + .seconds(1)
        let changes = [d1, d2, d3].map { Fixture.change(&delivery, key: key, .pushRejected($0, .tokenDead), at: at) }
        #expect(try await database.registration(d1)?.status == .pinVerified)  // cached now, where there is a cache
        _ = try await directory.store.deliveries.commit(inserts: [], changes: changes)
        let invalid = try #require(try await database.registration(d1))
        #expect(invalid.status == .invalid && invalid.updatedAt == at)
        #expect(try await database.registration(app: directory.first.key, device: d1)?.status == .invalid)
        #expect(try await database.registration(d3)?.status == .pinVerified)
        #expect(try await database.registration(d2) == nil)
        await directory.close()
    }

    /// Senders chosen to tell byte order from any collation: case, a precomposed and a decomposed umlaut, a quote.
    static let senders = ["CM", "cm", "Zeta", "zeta", "Ärzte", "A\u{308}rzte", "O'Reilly", "a+b", "😀", "N"]

    @Test("the inbox selects, orders and pages as the OData evaluator does, for the filters the device API supports",
          arguments: Backend.allCases)
    func inbox(_ backend: Backend) async throws {
        let directory = try await Directory.open(backend)
        let database = directory.database
        let msisdn = try Fixture.msisdn(1)
        var keys: [DeliveryKey] = []
        for n in 1...12 {
            // Equal times in pairs, so that orderings need their ID tie-break.
            keys.append(try await directory.send(n, app: directory.first, sender: Self.senders[n % Self.senders.count],
                                                 msisdn: msisdn, createdAt: Fixture.t0 + .seconds(Int64(n / 2))))
        }
        // Not in this inbox: another number, another app, and a message without an app.
        try await directory.send(20, app: directory.first, msisdn: Fixture.msisdn(2))
        try await directory.send(21, account: directory.globex, app: directory.second, msisdn: msisdn)
        try await directory.send(22, msisdn: msisdn)
        // Statuses: two delivered, one read (shown as Delivered).
        let stored = try await directory.store.deliveries.loadInFlight()
        var changes: [DeliveryChange] = []
        for (index, key) in [keys[1], keys[4], keys[7]].enumerated() {
            var delivery = try #require(stored.first { $0.key == key }).delivery
            let device = try Fixture.device(keys.firstIndex(of: key)! + 1)
            changes.append(Fixture.change(&delivery, key: key, .deliveryAcknowledged(device), at: Fixture.t0 + .seconds(30)))
            if index == 2 { changes.append(Fixture.change(&delivery, key: key, .readReported(device), at: Fixture.t0 + .seconds(31))) }
        }
        for change in changes { _ = try await directory.store.deliveries.commit(inserts: [], changes: [change]) }

        let all = try await database.inbox(app: directory.first.key, msisdn: msisdn, query: ODataQuery())
        #expect(Set(all.map(\.updateID)) == Set(keys))
        #expect(all == ODataQuery().apply(to: all), "the default order")
        #expect(all.filter { $0.status == .delivered }.count == 3 && !all.contains { $0.status == .read })
        #expect(try await database.inbox(app: directory.first.key, msisdn: try Fixture.msisdn(3), query: ODataQuery()).isEmpty)

        let middle = all[5]
        let filters: [ODataExpression?] = [
            nil,
            .comparison(.sender(.eq, "cm")), .comparison(.sender(.eq, "CM")), .comparison(.sender(.gt, "Z")),
            .comparison(.sender(.lt, "a")), .comparison(.sender(.ge, "Ä")), .comparison(.sender(.eq, "A\u{308}rzte")),
            .comparison(.sender(.eq, "O'Reilly")), .comparison(.sender(.ne, "zeta")), .comparison(.sender(.gt, "😀")),
            .comparison(.dateTime(.ge, middle.dateTime)), .comparison(.dateTime(.lt, middle.dateTime)),
            .comparison(.dateTime(.eq, middle.dateTime)),
            .comparison(.updateID(.gt, middle.updateID.rawValue)), .comparison(.updateID(.eq, middle.updateID.rawValue)),
            .comparison(.id(.le, middle.id)), .comparison(.id(.ne, middle.id)),
            .comparison(.status(.eq, .delivered)), .comparison(.status(.ne, .delivered)),
            .not(.or(.comparison(.status(.eq, .sent)), .comparison(.status(.eq, .accepted)))),
            .and(.comparison(.status(.eq, .delivered)), .not(.comparison(.sender(.eq, "Zeta")))),
            .or(.comparison(.sender(.eq, "cm")), .comparison(.updateID(.le, keys[2].rawValue))),
        ]
        let pagings: [(orderBy: [ODataOrder], skip: Int, top: Int?)] = [
            ([], 0, nil), ([.ascending(.sender)], 2, 3), ([.descending(.updateID), .ascending(.dateTime)], 0, 5),
            ([.descending(.id)], 1, nil), ([.ascending(.dateTime)], 0, 0), ([.descending(.sender), .descending(.dateTime)], 100, 5),
        ]
        var sizes: Set<Int> = []
        for filter in filters {
            for paging in pagings {
                let query = ODataQuery(top: paging.top, skip: paging.skip, orderBy: paging.orderBy, filter: filter)
                let expected = query.apply(to: all)
                #expect(try await database.inbox(app: directory.first.key, msisdn: msisdn, query: query) == expected,
                        "\(String(describing: filter)) \(paging)")
                if paging.skip == 0, paging.top == nil { sizes.insert(expected.count) }
            }
        }
        #expect(sizes.count >= 6, "the filters select different numbers of messages: \(sizes)")

        // And 150 random filters, orderings and pages, with values next to the stored ones.
        var random = SeededGenerator(seed: 0x0DA7A)
        func comparison() -> ODataComparison {
            let op = ODataOperator.allCases[Int.random(in: 0..<6, using: &random)]
            let stored = all[Int.random(in: 0..<all.count, using: &random)]
            let offset = Int64.random(in: -1...1, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return .id(op, stored.id)
            case 1: return .updateID(op, stored.updateID.rawValue + offset)
            case 2: return .sender(op, Self.senders.randomElement(using: &random)!)
            case 3: return .dateTime(op, Timestamp(milliseconds: stored.dateTime.milliseconds + offset))
            default: return .status(Bool.random(using: &random) ? .eq : .ne, AppMessageStatus.allCases.randomElement(using: &random)!)
            }
        }
        func expression(depth: Int) -> ODataExpression {
            switch depth == 0 ? 0 : Int.random(in: 0..<5, using: &random) {
            case 0, 1: return .comparison(comparison())
            case 2: return .and(expression(depth: depth - 1), expression(depth: depth - 1))
            case 3: return .or(expression(depth: depth - 1), expression(depth: depth - 1))
            default: return .not(expression(depth: depth - 1))
            }
        }
        for _ in 0..<150 {
            let keys = ODataSortField.allCases.shuffled(using: &random).prefix(Int.random(in: 0..<3, using: &random))
            let orderBy = keys.map { ODataOrder($0, Bool.random(using: &random) ? .ascending : .descending) }
            let top: Int? = Bool.random(using: &random) ? nil : Int.random(in: 0..<6, using: &random)
            let query = ODataQuery(top: top, skip: Int.random(in: 0..<4, using: &random), orderBy: orderBy,
                                   filter: expression(depth: 3))
            #expect(try await database.inbox(app: directory.first.key, msisdn: msisdn, query: query) == query.apply(to: all),
                    "\(query)")
        }
        await directory.close()
    }
}

/// SplitMix64: a small deterministic generator, so that a failing random query can be run again.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
