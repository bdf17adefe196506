import Foundation
import Testing
import TandemCore
import TandemEngine
import TandemStore
import TandemTestSupport
@testable import TandemAPI

/// The intake's recipients beyond phone numbers, and what it stores for every API.
@Suite("MessageIntake")
struct MessageIntakeTests {
    static let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"

    private func submit(_ h: GatewayHarness, _ commands: [SendCommand], account: Account? = nil) async -> IntakeResult {
        await h.intake.submit(IntakeRequest(account: account ?? h.accountA, messages: commands)) { _ in
            .commit(WireReply(status: 200, contentType: "text/plain", body: []))
        }
    }

    private func outcomes(_ result: IntakeResult) -> [RecipientOutcome] {
        guard case .stored(let outcome, _) = result else { return [] }
        return outcome.messages.flatMap { message -> [RecipientOutcome] in
            if case .accepted(_, let recipients) = message { recipients } else { [] }
        }
    }

    private func command(_ recipients: [Recipient], app: AppKey? = nil, presentation: PushPresentation = PushPresentation(),
                         api: String = "scg", extra: String? = nil) -> SendCommand {
        SendCommand(api: api, recipients: recipients, sender: "Shop", body: "Your parcel", presentation: presentation, appKey: app,
                    extra: extra)
    }

    @Test("a push address of the account's app (by app key or sender id) becomes one registration and is pushed with the presentation")
    func pushAddress() async throws {
        let h = try await GatewayHarness()
        defer { Task { await h.close() } }
        var presentation = PushPresentation()
        presentation.badge = 7
        presentation.customData = [JSONMember(key: "order", value: .number("42"))]
        let address = PushAddress(platform: .iOS, app: h.appA.key.text, token: try #require(PushToken(Self.token)))
        let first = await submit(h, [command([.pushAddress(address)], presentation: presentation, extra: #"{"external_id":"x1"}"#)])
        #expect(outcomes(first) == [.accepted])
        await h.dispatcher.waitUntilIdle()
        let pushed = try #require(h.push.sent.first)
        #expect(pushed.targets.map(\.token.text) == [Self.token] && pushed.content.presentation == presentation)
        #expect(pushed.content.app == h.appA.key && pushed.recipient.device == pushed.targets.first?.deviceID)
        #expect(try h.rows("SELECT origin, status, msisdn FROM registrations") == [[.text("pushAddress"), .text("Unverified"), .null]])

        // The same token by the app's sender id: the same registration.
        #expect(try await h.store.setSenderID(app: h.appA.key, to: "shop-sender"))
        let again = PushAddress(platform: .iOS, app: "shop-sender", token: try #require(PushToken(Self.token)))
        #expect(outcomes(await submit(h, [command([.pushAddress(again)])])) == [.accepted])
        #expect(try h.count("SELECT COUNT(*) FROM registrations") == 1)

        // Stored with the message: API, presentation, extra fields; and read back by recovery.
        #expect(try h.rows("SELECT api, extra FROM messages ORDER BY id LIMIT 1") == [[.text("scg"), .text(#"{"external_id":"x1"}"#)]])
        let inFlight = try await SQLiteDeliveryStore(store: h.store).loadInFlight()
        #expect(inFlight.first?.content.presentation == presentation)
        #expect(inFlight.first?.recipient.device != nil)
    }

    @Test("an app the adapter already holds is used as it is, still only for its own account; any other is read")
    func knownApps() async throws {
        let h = try await GatewayHarness()
        defer { Task { await h.close() } }
        let number = try #require(MSISDN("+31612345678"))
        // As an adapter's cache holds it: another default type than the stored one.
        let held = App(key: h.appA.key, secret: h.appA.secret, name: h.appA.name, account: h.appA.account,
                       defaultMessageType: .otp, createdAt: 0)
        let submit = { (knownApps: [App], account: Account) async -> IntakeResult in
            await h.intake.submit(IntakeRequest(account: account, messages: [self.command([.msisdn(number)], app: h.appA.key)],
                                                knownApps: knownApps)) { _ in
                .commit(WireReply(status: 200, contentType: "text/plain", body: []))
            }
        }
        #expect(outcomes(await submit([held], h.accountA)) == [.accepted])
        #expect(outcomes(await submit([h.appB], h.accountA)) == [.accepted])  // not the message's app: read
        #expect(try h.rows("SELECT message_type FROM messages ORDER BY id") == [[.text("OTP")], [.text("Default")]])
        guard case .stored(let refused, _) = await submit([held], h.accountB) else { Issue.record("not answered"); return }
        #expect(refused.messages == [.rejected(.unknownApp(h.appA.key))])
    }

    @Test("push addresses naming no app of the account, or another app than the message's, are refused one by one")
    func pushAddressRefusals() async throws {
        let h = try await GatewayHarness()
        defer { Task { await h.close() } }
        let token = try #require(PushToken(Self.token))
        let unknown = PushAddress(platform: .android, app: "nobody", token: token)
        let otherAccount = PushAddress(platform: .android, app: h.appB.key.text, token: token)
        let ours = PushAddress(platform: .android, app: h.appA.key.text, token: token)
        let result = await submit(h, [command([.pushAddress(unknown), .pushAddress(otherAccount), .pushAddress(ours)])])
        #expect(outcomes(result) == [.rejected(.unknownPushApp("nobody")), .rejected(.unknownPushApp(h.appB.key.text)), .accepted])

        // A message for app A cannot push to app B's tokens even within one account.
        var generatorForTests = SystemRandomNumberGenerator()
        let appC = App(key: .random(using: &generatorForTests), secret: .random(using: &generatorForTests), name: "C",
                       account: h.accountA.productToken, defaultMessageType: .default, createdAt: 0)
        try await h.store.insert(appC)
        let toC = PushAddress(platform: .android, app: appC.key.text, token: token)
        #expect(outcomes(await submit(h, [command([.pushAddress(toC)], app: h.appA.key)])) == [.rejected(.otherApp(appC.key.text))])
    }

    @Test("a registration recipient is pushed only (never SMS), must belong to the message's app, and needs an app")
    func registrationRecipients() async throws {
        let h = try await GatewayHarness()
        defer { Task { await h.close() } }
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31612345678")
        var generatorForTests = SystemRandomNumberGenerator()
        let stranger = DeviceID.random(using: &generatorForTests)
        let result = await submit(h, [command([.registration(device), .registration(stranger), .group("vip")], app: h.appA.key)])
        #expect(outcomes(result) == [.accepted, .rejected(.unknownRegistration(stranger)), .rejected(.unknownGroup("vip"))])
        await h.dispatcher.waitUntilIdle()
        #expect(h.push.sent.map(\.recipient) == [.device(device)] && h.sms.sent.isEmpty)

        guard case .stored(let outcome, _) = await submit(h, [command([.registration(device)])]) else {
            Issue.record("not stored")
            return
        }
        #expect(outcome.messages == [.rejected(.appRequiredForPushRecipients)])
    }

    @Test("a push whose rendered payload would not fit is refused at acceptance, naming platform and size")
    func oversize() async throws {
        let h = try await GatewayHarness()
        defer { Task { await h.close() } }
        struct Limit: PushPayloadMeasure {
            func oversize(_ content: MessageContent, platform: Platform) -> (bytes: Int, limit: Int)? {
                content.presentation.customData.isEmpty ? nil : (5_000, 4_096)
            }
        }
        let intake = MessageIntake(directory: h.store, addresses: h.store, keys: h.store, payloads: Limit(), ledger: h.store, scheduler: h.scheduler,
                                   policies: .specDefaults, now: { GatewayHarness.t0 })
        let device = try await h.verifiedDevice(h.appA, msisdn: "+31612345678")
        var big = PushPresentation()
        big.customData = [JSONMember(key: "blob", value: .string(String(repeating: "x", count: 5_000)))]
        let result = await intake.submit(IntakeRequest(account: h.accountA, messages: [
            command([.registration(device)], app: h.appA.key, presentation: big),
            SendCommand(api: "cm", recipients: [.msisdn(try #require(MSISDN("+31612345678")))], sender: "Shop", body: "hi",
                        presentation: big, appKey: h.appA.key),
            command([.registration(device)], app: h.appA.key),
        ])) { _ in .commit(WireReply(status: 200, contentType: "", body: [])) }
        #expect(outcomes(result) == [.rejected(.payloadTooLarge(.iOS, bytes: 5_000, limit: 4_096)),
                                     .rejected(.payloadTooLarge(.iOS, bytes: 5_000, limit: 4_096)), .accepted])
    }

    @Test("an idempotency key is a row in the store: another process's claim is waited for, a dead one's taken over, a refusal frees it")
    func idempotencyAcrossProcesses() async throws {
        let h = try await GatewayHarness()
        defer { Task { await h.close() } }
        var configuration = MessageIntake.Configuration()
        configuration.idempotencyWait = .milliseconds(50)
        configuration.idempotencyClaimTimeout = .seconds(60)
        // A second process on the same database: its own intake, the same store.
        let clock = h.clock
        let other = MessageIntake(directory: h.store, addresses: h.store, keys: h.store, ledger: h.store, scheduler: h.scheduler,
                                  policies: .specDefaults, now: { clock.now() }, configuration: configuration)
        let number = try #require(MSISDN("+31612345678"))
        let request = IntakeRequest(account: h.accountA, messages: [SendCommand(api: "cm", recipients: [.msisdn(number)],
                                                                                 sender: "Shop", body: "hi")],
                                    idempotency: IdempotencyClaim(key: "k-1", digest: "d-1"))
        let answer = { (_: IntakeOutcome) -> IntakeReply in .commit(WireReply(status: 200, contentType: "text/plain", body: Array("ok".utf8))) }

        // The first process claimed the key and has not stored its request yet.
        #expect(try await h.store.claimIdempotencyKey(account: h.accountA.productToken, key: "k-1", digest: "d-1",
                                                      at: h.clock.now()) == .claimed)
        guard case .idempotencyKeyInProgress = await other.submit(request, reply: answer) else {
            Issue.record("a claimed key was not reported in progress")
            return
        }
        #expect(try h.count("SELECT COUNT(*) FROM deliveries") == 0)

        // That process died: after the claim timeout the key is taken over, and the request stored once.
        h.clock.advance(to: GatewayHarness.t0 + .seconds(61))
        guard case .stored = await other.submit(request, reply: answer) else {
            Issue.record("a dead claim was not taken over")
            return
        }
        guard case .replayed(let replayed) = await h.intake.submit(request, reply: answer) else {
            Issue.record("the retry was not replayed")
            return
        }
        #expect(replayed.body == Array("ok".utf8))
        #expect(try h.count("SELECT COUNT(*) FROM deliveries") == 1)

        // A request the adapter refused stored nothing and leaves the key free for a corrected one.
        var refused = request
        refused.idempotency = IdempotencyClaim(key: "k-2", digest: "bad")
        _ = await h.intake.submit(refused) { _ in .refuse(WireReply(status: 400, contentType: "", body: [])) }
        var corrected = request
        corrected.idempotency = IdempotencyClaim(key: "k-2", digest: "good")
        guard case .stored = await h.intake.submit(corrected, reply: answer) else {
            Issue.record("the key of a refused request was not freed")
            return
        }
    }
}
