import TandemCore
import TandemEngine

/// The SCG messaging API (`/scg-external-api/api/v1/messaging/…`) as an adapter over ``MessageIntake``,
/// for code written against Syniverse's SDKs: authenticates the bearer token, decodes the request
/// (``SCGCodec``), hands it to the intake as one ``SendCommand`` (`api` `scg`), and renders reads of the
/// account's SCG messages (``SCGViewEncoder``).
///
/// Rules:
/// - `Authorization: Bearer <token>` of a live token (``SCGTokenAuthenticator``); missing, unknown or
///   revoked → 401 (SCG's SDKs then refresh their token); a token of a disabled account → 403, never 401,
///   since no refresh will help; a valid token is never answered 401;
/// - a create is answered `{"id": …}` only after the commit; a request any recipient of which the intake
///   refuses (unknown app or sender, payload too large, SMS country) is refused whole with 400 naming
///   `to[i]`, and nothing is stored;
/// - another account's request, a request sent through another API, or a deleted one → 404;
/// - `{"state":"CANCELED"}` records ``DeliveryEvent/cancelledBySender`` for every recipient not final:
///   what no provider has taken ends `CANCELED`, the rest carries on; recipients still queued in the
///   message's spool (requests of at least the spool threshold of numbers) end `CANCELED` without being sent.
public final class SCGMessagingService: Sendable {
    public typealias Reply = WireReply

    let intake: MessageIntake
    let messages: any SCGMessageStore
    let authenticator: SCGTokenAuthenticator
    let scheduler: Scheduler
    let logger: Logger

    /// Largest `limit` of a listing (and its default).
    public static let maximumLimit = 100

    public init(intake: MessageIntake, messages: any SCGMessageStore, authenticator: SCGTokenAuthenticator,
                scheduler: Scheduler, logger: Logger = .discarding) {
        self.intake = intake
        self.messages = messages
        self.authenticator = authenticator
        self.scheduler = scheduler
        self.logger = logger
    }

    // MARK: Create

    /// `POST /messaging/message_requests`. With an `Idempotency-Key`, a retry of the same request gets the first
    /// reply (the same id) and creates nothing; the key with another request → 422; while the first is still
    /// being stored → 409.
    public func create(authorization: String?, idempotencyKey: String? = nil, body: [UInt8]) async -> Reply {
        let account: Account
        switch await authenticate(authorization) {
        case .success(let found): account = found
        case .failure(let error): return error.reply
        }
        var claim: IdempotencyClaim?
        if let idempotencyKey {
            claim = IdempotencyClaim.request(key: idempotencyKey, target: "POST " + Self.createPath, body: body)
            if claim == nil {
                return SCGError.field("Idempotency-Key", "Idempotency-Key must be 1-255 printable ASCII characters").reply
            }
        }
        let request: SCGMessageRequest
        do throws(SCGError) {
            request = try SCGCodec.decodeMessageRequest(body)
        } catch {
            return error.reply
        }
        let result = await intake.submit(IntakeRequest(account: account, messages: [request.command], idempotency: claim)) { outcome in
            Self.reply(outcome, request: request)
        }
        switch result {
        case .stored(_, let reply), .replayed(let reply), .refused(let reply):
            return reply
        case .idempotencyKeyReused:
            return SCGError(.idempotencyKeyReused, field: "Idempotency-Key",
                            "Idempotency-Key \(JSONText.quoted(idempotencyKey ?? "")) was used for a different request").reply
        case .idempotencyKeyInProgress:
            return SCGError(.requestInProgress, field: "Idempotency-Key",
                            "a request with this Idempotency-Key is still being stored; retry later").reply
        case .failed:
            return SCGError(.internalError, "internal error; nothing was stored").reply
        case .unavailable:
            return SCGError(.serviceUnavailable, "this server cannot take messages right now; nothing was stored; retry").reply
        }
    }

    /// The create route's path (part of an idempotency claim's digest).
    static let createPath = "/scg-external-api/api/v1/messaging/message_requests"

    /// The reply to the intake's outcome: the id, or the first refusal (and nothing stored).
    static func reply(_ outcome: IntakeOutcome, request: SCGMessageRequest) -> IntakeReply {
        guard let message = outcome.messages.first else {
            return .refuse(SCGError(.internalError, "internal error; nothing was stored").reply)
        }
        switch message {
        case .rejected(let rejection):
            return .refuse(error(rejection).reply)
        case .accepted(let id, let recipients):
            for (index, recipient) in recipients.enumerated() {
                if case .rejected(let rejection) = recipient {
                    return .refuse(SCGError.field("to[\(index)]", "to[\(index)] \(JSONText.quoted(request.to[index])): "
                        + rejection.details).reply)
                }
            }
            return .commit(Reply(status: 200, contentType: "application/json",
                                 body: Array(("{\"id\":" + JSONText.quoted(id.text) + "}").utf8)))
        }
    }

    /// SCG's words for the intake's refusals of a whole request.
    static func error(_ rejection: MessageRejection) -> SCGError {
        switch rejection {
        case .unknownApp: .field("application_id", rejection.details)
        case .validityPassed: .field("expiry_time", rejection.details)
        case .appRequiredForPushRecipients: .field("application_id", rejection.details)
        case .fallbackRequiresSMSOnly, .fallbackTargetNotFound: SCGError(.invalidField, rejection.details)
        }
    }

    // MARK: Authentication

    func authenticate(_ header: String?) async -> Result<Account, SCGError> {
        guard let header, let token = Self.bearer(header) else {
            return .failure(SCGError(.unauthorized, "Authorization: Bearer <token> is required"))
        }
        do {
            switch try await authenticator.authenticate(token) {
            case .authenticated(let account): return .success(account)
            case .unknown: return .failure(SCGError(.unauthorized, "the bearer token is unknown or revoked"))
            case .disabled: return .failure(SCGError(.accountDisabled, "the account is disabled"))
            }
        } catch {
            logger.error("SCG token lookup failed", ["error": .string("\(error)")])
            return .failure(SCGError(.internalError, "internal error"))
        }
    }

    static func bearer(_ header: String) -> String? {
        let parts = header.trimmingASCIISpaces().split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1]).trimmingASCIISpaces()
        return token.isEmpty ? nil : token
    }
}
