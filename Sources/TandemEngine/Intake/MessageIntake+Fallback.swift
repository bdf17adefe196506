import TandemCore

extension MessageIntake {
    /// What a manual fallback did for one recipient.
    public enum ManualFallbackOutcome: Sendable, Hashable {
        case requested(ManualFallbackAvailability)
        /// The account's country rule allows no SMS to this number's region, not even on request.
        case smsCountryNotAllowed
    }

    /// The account's message with this id, else its latest message with this reference.
    public func latestMessage(account: Account, idOrReference: String) async throws -> MessageView? {
        if let id = GUID(idOrReference), let message = try await ledger.message(account: account.productToken, id: id) {
            return message
        }
        return try await ledger.messages(account: account.productToken, reference: idOrReference).last
    }

    /// Ends the recipients of `message` still queued in its spool as cancelled by the sender (each stored final,
    /// nothing sent); once this returns, every recipient of the message has a delivery. Returns how many it ended.
    public func cancelQueued(message: GUID) async throws -> Int {
        try await drainer?.cancel(message: message) ?? 0
    }

    /// Asks each in-flight recipient of the account's message (by id, else its latest with that reference)
    /// for its SMS now; recipients still queued in the message's spool are started first. Nil when the
    /// account has no such message.
    public func manualFallback(account: Account,
                               idOrReference: String) async throws -> (message: GUID, recipients: [(DeliveryRecipient, ManualFallbackOutcome)])? {
        guard var message = try await latestMessage(account: account, idOrReference: idOrReference) else { return nil }
        if let drainer, !message.queued.isEmpty {
            // Recipients still in the spool have no delivery to fall back from: start them first.
            try await drainer.drain(message: message.id)
            message = try await ledger.message(account: account.productToken, id: message.id) ?? message
        }
        var results: [(DeliveryRecipient, ManualFallbackOutcome)] = []
        for recipient in message.recipients {
            if !recipient.delivery.isFinal, account.smsCountries.mode == .enforce, let msisdn = recipient.recipient.msisdn,
               !account.smsCountries.countries.permits(CallingCodes.region(of: msisdn)) {
                results.append((recipient.recipient, .smsCountryNotAllowed))
                continue
            }
            let outcome = recipient.delivery.isFinal
                ? ManualFallbackAvailability.alreadyFinal
                : try await scheduler.requestManualFallback(for: recipient.key)
            results.append((recipient.recipient, .requested(outcome)))
        }
        return (message.id, results)
    }
}
