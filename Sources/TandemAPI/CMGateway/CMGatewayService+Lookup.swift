import TandemCore
import TandemEngine

extension CMGatewayService {
    /// `GET /v1.0/message/{id}` (by id, else by reference) and `GET /v1.0/message?reference=`: the account's
    /// matching messages with every recipient's status and event timeline. 404 when there is none.
    public func lookup(token: String?, idOrReference: String, byIDFirst: Bool) async -> Reply {
        let account: Account
        switch await authenticateForLookup(token) {
        case .success(let found): account = found
        case .failure(let reply): return reply
        }
        do {
            if byIDFirst, let id = GUID(idOrReference),
               let message = try await ledger.message(account: account.productToken, id: id) {
                return Reply(status: 200, contentType: "application/json", body: MessageViewEncoder.encode(message))
            }
            let messages = try await ledger.messages(account: account.productToken, reference: idOrReference)
            guard !messages.isEmpty else { return notFound(idOrReference) }
            if byIDFirst && messages.count == 1 {
                return Reply(status: 200, contentType: "application/json", body: MessageViewEncoder.encode(messages[0]))
            }
            return Reply(status: 200, contentType: "application/json", body: MessageViewEncoder.encode(list: messages))
        } catch {
            logger.error("message lookup failed", ["error": .string("\(error)")])
            return internalFailure(format: .json)
        }
    }

    /// `POST /v1.0/message/{id}/fallback`: asks each in-flight recipient of the message for its SMS now.
    /// Each recipient's answer says whether the fallback was carried out and, if not, why.
    public func manualFallback(token: String?, idOrReference: String) async -> Reply {
        let account: Account
        switch await authenticateForLookup(token) {
        case .success(let found): account = found
        case .failure(let reply): return reply
        }
        let report: (message: GUID, recipients: [(DeliveryRecipient, MessageIntake.ManualFallbackOutcome)])
        do {
            guard let found = try await intake.manualFallback(account: account, idOrReference: idOrReference) else {
                return notFound(idOrReference)
            }
            report = found
        } catch {
            logger.error("manual fallback failed", ["error": .string("\(error)")])
            return internalFailure(format: .json)
        }
        var body = "{\"messageId\":" + JSONText.quoted(report.message.text) + ",\"recipients\":["
        body += report.recipients.map { recipient, outcome in
            "{\"to\":" + JSONText.quoted(recipient.storedText) + ",\"fallback\":" + JSONText.quoted(Self.describe(outcome)) + "}"
        }.joined(separator: ",")
        body += "]}"
        return Reply(status: 200, contentType: "application/json", body: Array(body.utf8))
    }

    private static func describe(_ outcome: MessageIntake.ManualFallbackOutcome) -> String {
        guard case .requested(let availability) = outcome else { return "smsCountryNotAllowed" }
        return switch availability {
        case .available: "smsRequested"
        case .notAllowedByPolicy: "notAllowedByPolicy"
        case .smsAlreadyRequested: "smsAlreadyRequested"
        case .alreadyFinal: "alreadyFinal"
        case .notPushed: "notPushed"
        }
    }

    private func authenticateForLookup(_ token: String?) async -> Result<Account, Reply> {
        guard let token, let productToken = ProductToken(token) else {
            return .failure(unauthorized("a valid product token is required (X-CM-PRODUCTTOKEN)"))
        }
        do {
            guard case .authenticated(let account) = try await authenticator.authenticate(productToken) else {
                return .failure(unauthorized("No account found for the given authentication"))
            }
            return .success(account)
        } catch {
            return .failure(internalFailure(format: .json))
        }
    }

    private func unauthorized(_ details: String) -> Reply {
        var reply = failure(CMRequestError(code: .authenticationFailed, details: details), format: .json)
        reply.status = 401
        return reply
    }

    private func notFound(_ idOrReference: String) -> Reply {
        Reply(status: 404, contentType: "application/json",
              body: Array(("{\"details\":" + JSONText.quoted("no message with id or reference \(idOrReference)")
                  + ",\"errorCode\":999}").utf8))
    }
}
