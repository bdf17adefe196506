import TandemCore
import TandemEngine

/// `POST /v1.0/push-events`: a backend's cospace push event (``CospaceEvent``) becomes one message through
/// ``MessageIntake`` — api `cospace`, push only, the Default type, one recipient per live token of the
/// owner (``Recipient/registration(_:)``), the event's data-only presentation — so every device's delivery
/// has its status in the usual message view (`GET /v1.0/message/{messageId}`).
///
/// Authentication is the account's product token (`X-CM-PRODUCTTOKEN`); missing or malformed → 401,
/// unknown or disabled → 401. A body the codec refuses → 400 naming the key; an `appKey` that is not the
/// account's app or an `owner` that is not an active user of it → 404. The answer is 200
/// `{"messageId","deliveries":[{"deviceId","platform","updateId"}|{"deviceId","platform","error"}]}` in the
/// owner's token order (`messageId` null and no deliveries when the owner has no live token), once the
/// deliveries are committed.
/// Not guaranteed: that a token added after the event was accepted gets it.
public struct CospaceEventService: Sendable {
    let intake: MessageIntake
    let ledger: any MessageLedger
    let directory: any SenderDirectory
    let registry: any CospaceRegistry
    let authenticator: ProductTokenAuthenticator
    let logger: Logger

    public init(intake: MessageIntake, ledger: any MessageLedger, directory: any SenderDirectory, registry: any CospaceRegistry,
                authenticator: ProductTokenAuthenticator, logger: Logger = .discarding) {
        self.intake = intake
        self.ledger = ledger
        self.directory = directory
        self.registry = registry
        self.authenticator = authenticator
        self.logger = logger.with(["component": "cospace"])
    }

    public typealias Reply = CospacePushService.Reply

    public func post(productToken: String?, body: [UInt8]) async -> Reply {
        guard let text = productToken, !text.isEmpty else { return Self.error(401, "X-CM-PRODUCTTOKEN is required") }
        guard let token = ProductToken(text) else { return Self.error(401, "the product token is not a valid GUID") }
        let account: Account
        do {
            switch try await authenticator.authenticate(token) {
            case .authenticated(let found): account = found
            case .unknown: return Self.error(401, "no account has this product token")
            case .disabled: return Self.error(401, "the account is disabled")
            }
        } catch {
            logger.error("account lookup failed", ["error": .string("\(error)")])
            return CospacePushService.internalError
        }
        let event: CospaceEvent
        switch CospaceEvent.decode(body) {
        case .success(let decoded): event = decoded
        case .failure(let refusal): return Reply(status: 400, document: refusal.document)
        }
        let devices: [CospaceTokens.Entry]
        do {
            guard let app = try await directory.app(key: event.app), app.account == account.productToken else {
                return Self.error(404, "appKey \(event.app.text) is not an app of this account")
            }
            guard try await registry.isActiveUser(app: event.app, user: event.owner) else {
                return Self.error(404, "owner \(event.owner.text) is not a user of this app")
            }
            devices = try await registry.tokens(app: event.app, user: event.owner).entries
        } catch {
            logger.error("cospace owner lookup failed", ["app": .string(event.app.text), "error": .string("\(error)")])
            return CospacePushService.internalError
        }
        guard !devices.isEmpty else { return Reply(status: 200, document: Self.document(messageID: nil, lines: [])) }
        let extra = JSONValue.object([JSONMember(key: "owner", value: .string(event.owner.text))]).compactText
        let command = SendCommand(api: "cospace", recipients: devices.map { .registration($0.device) }, sender: "cospace",
                                  body: event.message, presentation: event.presentation, appKey: event.app,
                                  messageType: .default, allowedChannels: .only([.push]), extra: extra)
        let placeholder = WireReply(status: 200, contentType: "application/json", body: [])
        switch await intake.submit(IntakeRequest(account: account, messages: [command]), reply: { _ in .commit(placeholder) }) {
        case .stored(let outcome, _):
            return await reply(outcome, devices: devices, account: account)
        case .replayed, .refused, .idempotencyKeyReused, .idempotencyKeyInProgress, .failed, .unavailable:
            return CospacePushService.internalError
        }
    }

    /// One line per device, in the order the recipients were given.
    private func reply(_ outcome: IntakeOutcome, devices: [CospaceTokens.Entry], account: Account) async -> Reply {
        guard let message = outcome.messages.first else { return CospacePushService.internalError }
        switch message {
        case .rejected(let rejection):
            return Self.error(400, rejection.details)
        case .accepted(let id, let recipients):
            var keys: [DeviceID: DeliveryKey] = [:]
            do {
                for recipient in try await ledger.message(account: account.productToken, id: id)?.recipients ?? [] {
                    if let device = recipient.recipient.device { keys[device] = recipient.key }
                }
            } catch {
                logger.error("cospace event deliveries could not be read", ["error": .string("\(error)")])
                return CospacePushService.internalError
            }
            let lines = zip(devices, recipients).map { entry, outcome -> JSONValue in
                var members = [JSONMember(key: "deviceId", value: .string(entry.device.text)),
                               JSONMember(key: "platform", value: .string(entry.token.platform == .iOS ? "apns" : "gcm"))]
                switch outcome {
                case .accepted:
                    members.append(JSONMember(key: "updateId", value: keys[entry.device].map { .string(String($0.rawValue)) } ?? .null))
                case .rejected(let rejection):
                    members.append(JSONMember(key: "error", value: .string(rejection.details)))
                }
                return .object(members)
            }
            return Reply(status: 200, document: Self.document(messageID: id, lines: lines))
        }
    }

    private static func document(messageID: GUID?, lines: [JSONValue]) -> JSONValue {
        .object([JSONMember(key: "messageId", value: messageID.map { .string($0.text) } ?? .null),
                 JSONMember(key: "deliveries", value: .array(lines))])
    }

    private static func error(_ status: Int, _ message: String) -> Reply {
        Reply(status: status, document: .object([JSONMember(key: "error", value: .string(message))]))
    }
}
