import TandemCore
import TandemEngine

extension CMGatewayService {
    /// Hands the valid `msg`s to the intake and maps its outcome to CM's reply lines, in request order:
    /// a `msg` the codec refused, and recipients it refused, answer with the codec's error; the others with
    /// the intake's decision.
    func process(_ submission: CMSubmission, account: Account, idempotency: IdempotencyClaim?) async -> Reply {
        let commands = submission.messages.compactMap { entry -> SendCommand? in
            guard case .success(let message) = entry.result else { return nil }
            return Self.command(message)
        }
        let request = IntakeRequest(account: account, messages: commands, idempotency: idempotency)
        let result = await intake.submit(request) { outcome in
            Self.reply(lines: Self.lines(submission, outcome), format: submission.format, failure: failure)
        }
        switch result {
        case .stored(_, let reply), .replayed(let reply), .refused(let reply):
            return reply
        case .idempotencyKeyReused:
            return idempotencyFailure(status: 422, "Idempotency-Key \(idempotency?.key ?? "") was used for a different request",
                                      format: submission.format)
        case .idempotencyKeyInProgress:
            return idempotencyFailure(status: 409, "a request with Idempotency-Key \(idempotency?.key ?? "") is still in progress; retry later",
                                      format: submission.format)
        case .failed:
            return internalFailure(format: submission.format)
        case .unavailable:
            return unavailableFailure(format: submission.format)
        }
    }

    private func idempotencyFailure(status: Int, _ details: String, format: CMRequestFormat) -> Reply {
        var reply = failure(CMRequestError(code: .invalidField, details: details), format: format)
        reply.status = status
        return reply
    }

    /// A decoded `msg` as the intake's neutral command (its valid recipients only).
    static func command(_ message: CMMessage) -> SendCommand {
        var recipients: [Recipient] = []
        recipients.reserveCapacity(message.recipients.count)
        for recipient in message.recipients { if let msisdn = recipient.msisdn { recipients.append(.msisdn(msisdn)) } }
        var command = SendCommand(api: "cm", recipients: recipients,
                        sender: message.from.text, body: message.body, appKey: message.appKey,
                        messageType: message.appMessageType, allowedChannels: message.allowedChannels, validity: message.validity,
                        reference: message.reference,
                        customGroupings: [message.customGrouping, message.customGrouping2, message.customGrouping3],
                        bodyType: message.bodyType.wireName, dcs: message.dcs, richContent: message.richContent,
                        fallbackFor: message.fallbackFor)
        command.$presentation = message.$presentation  // shared as it is, not copied out
        return command
    }

    /// JSON answers every line (HTTP 200 or CM's partial-failure status); XML and GET have no per-message
    /// results, so any refused line refuses the whole request with its error.
    static func reply(lines: [CMResponseLine], format: CMRequestFormat,
                      failure: (CMRequestError, CMRequestFormat) -> Reply) -> IntakeReply {
        switch format {
        case .json:
            let encoded = CMResponseEncoder.json(lines: lines)
            return .commit(Reply(status: encoded.status, contentType: "application/json", body: encoded.body))
        case .xml, .get:
            if let refused = lines.first(where: { !$0.accepted }) {
                return .refuse(failure(CMRequestError(code: refused.errorCode, details: refused.details ?? ""), format))
            }
            return .commit(Reply(status: 200, contentType: "text/plain; charset=utf-8", body: []))
        }
    }

    /// One line per recipient, in request order (one line for a `msg` without recipients).
    static func lines(_ submission: CMSubmission, _ outcome: IntakeOutcome) -> [CMResponseLine] {
        var lines: [CMResponseLine] = []
        var outcomes = outcome.messages.makeIterator()
        for entry in submission.messages {
            let message: CMMessage
            switch entry.result {
            case .failure(let error):
                reject(entry.recipients, reference: entry.reference, parts: 0, error: error, into: &lines)
                continue
            case .success(let valid):
                message = valid
            }
            let parts = message.segmentation.parts
            switch outcomes.next() {
            case .rejected(let rejection)?:
                reject(message.recipients.map(\.raw), reference: message.reference, parts: parts, error: error(rejection),
                       into: &lines)
            case .accepted(let id, let recipientOutcomes)?:
                var results = recipientOutcomes.makeIterator()
                for recipient in message.recipients {
                    if case .failure(let error) = recipient.result {
                        reject([recipient.raw], reference: message.reference, parts: parts, error: error, into: &lines)
                        continue
                    }
                    switch results.next() {
                    case .rejected(let rejection)?:
                        reject([recipient.raw], reference: message.reference, parts: parts, error: error(rejection), into: &lines)
                    case .accepted?, nil:
                        lines.append(CMResponseLine(to: recipient.raw, accepted: true, reference: message.reference, parts: parts,
                                                    details: nil, errorCode: .ok, messageID: id.text))
                    }
                }
            case nil:
                preconditionFailure("the intake answers every command")
            }
        }
        return lines
    }

    /// CM's words for the intake's refusals.
    static func error(_ rejection: MessageRejection) -> CMMessageError {
        switch rejection {
        case .unknownApp: CMMessageError(code: .appNotAllowed, details: rejection.details)
        case .validityPassed, .fallbackRequiresSMSOnly, .fallbackTargetNotFound, .appRequiredForPushRecipients:
            CMMessageError(code: .invalidField, details: rejection.details)
        }
    }

    static func error(_ rejection: RecipientRejection) -> CMMessageError {
        switch rejection {
        case .smsCountryNotAllowed: CMMessageError(code: .messageRejected, details: rejection.details)
        case .unknownRegistration, .unknownPushApp, .otherApp, .unknownGroup: CMMessageError(code: .invalidTo, details: rejection.details)
        case .payloadTooLarge: CMMessageError(code: .invalidBody, details: rejection.details)
        }
    }

    private static func reject(_ recipients: [String], reference: String?, parts: Int, error: CMMessageError,
                               into lines: inout [CMResponseLine]) {
        for raw in recipients.isEmpty ? [""] : recipients {
            lines.append(CMResponseLine(to: raw, accepted: false, reference: reference, parts: parts,
                                        details: error.details, errorCode: error.code, messageID: nil))
        }
    }
}
