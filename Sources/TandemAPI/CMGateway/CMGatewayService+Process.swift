import TandemCore
import TandemCrypto
import TandemEngine

extension CMGatewayService {
    /// One `msg` after the account-level checks: its record and its recipients, each accepted (with the
    /// routing decision) or rejected (with a code).
    private struct Plan {
        var lines: [CMResponseLine] = []
        var deliveries: [Scheduler.NewDelivery] = []
        var records: [MessageRecord] = []
        var spools: [RecipientSpool] = []
        /// In-flight deliveries of earlier messages that a `fallbackFor` SMS supersedes.
        var superseded: [DeliveryKey] = []
        var firstError: CMMessageError?
    }

    func process(_ submission: CMSubmission, account: Account, idempotency: (key: String, digest: String)?) async -> Reply {
        let now = now()
        var plan = Plan()
        do {
            try await startQueuedRecipients(ofEarlierMessagesIn: submission, account: account)
            for entry in submission.messages {
                try add(entry, account: account, now: now, to: &plan)
            }
        } catch {
            logger.error("gateway lookup failed", ["error": .string("\(error)")])
            return internalFailure(format: submission.format)
        }

        let reply: Reply
        switch submission.format {
        case .json:
            let encoded = CMResponseEncoder.json(lines: plan.lines)
            reply = Reply(status: encoded.status, contentType: "application/json", body: encoded.body)
        case .xml, .get:
            if let error = plan.firstError {
                // The plain forms reject the whole request: nothing is stored.
                return failure(CMRequestError(code: error.code, details: error.details), format: submission.format)
            }
            reply = Reply(status: 200, contentType: "text/plain; charset=utf-8", body: [])
        }

        var request = AcceptedRequest(messages: plan.records, spools: plan.spools)
        if let idempotency {
            request.idempotency = IdempotencyRecord(account: account.productToken, key: idempotency.key,
                                                    requestDigest: idempotency.digest, status: reply.status,
                                                    contentType: reply.contentType, body: reply.body, createdAt: now)
        }
        do {
            if !plan.superseded.isEmpty {
                _ = try await scheduler.record(plan.superseded.map { ($0, DeliveryEvent.supersededBySMS) })
            }
            _ = try await scheduler.accept(plan.deliveries, request: request)
            if !plan.spools.isEmpty { await drainer?.wake() }
        } catch {
            logger.error("gateway commit failed", ["error": .string("\(error)"), "deliveries": .int(Int64(plan.deliveries.count))])
            return internalFailure(format: submission.format)
        }
        return reply
    }

    private func add(_ entry: CMMessageEntry, account: Account, now: Timestamp, to plan: inout Plan) throws {
        let message: CMMessage
        switch entry.result {
        case .failure(let error):
            reject(entry.recipients, reference: entry.reference, parts: 0, error: error, into: &plan)
            return
        case .success(let valid):
            message = valid
        }
        let parts = message.segmentation.parts
        let checked = try check(message, account: account, now: now)
        let (app, validUntil, earlier): (App?, Timestamp?, MessageView?)
        switch checked {
        case .failure(let error):
            reject(message.recipients.map(\.raw), reference: message.reference, parts: parts, error: error, into: &plan)
            return
        case .success(let values):
            (app, validUntil, earlier) = values
        }

        var generator = SecureRandom.Generator()
        // Time-ordered: the messages' unique index on it then grows at its end (a random GUID cost a page write each).
        let messageID = GUID.timeOrdered(unixMilliseconds: now.milliseconds, using: &generator)
        let content = MessageContent(messageID: messageID, sender: message.from.text, body: message.body,
                                     reference: message.reference, app: app?.key, forceUCS2: message.dcs == 8)
        let messageType = message.appMessageType ?? app?.defaultMessageType ?? .default
        let routing = RoutingRequest(allowedChannels: message.allowedChannels, appKey: message.appKey,
                                     messageType: message.appMessageType)
        // The account's country rule: a recipient only SMS can reach (no app, or Push not allowed) in a
        // refused region is rejected here, spooled or not; the others are decided once routed.
        let smsOnly = message.allowedChannels.allows(.sms) && (routing.appKey == nil || !message.allowedChannels.allows(.push))
        let countryRefusal = { (msisdn: MSISDN) -> RegionCode? in
            guard smsOnly, account.smsCountries.mode == .enforce else { return nil }
            let region = CallingCodes.region(of: msisdn)
            return account.smsCountries.countries.permits(region) ? nil : region
        }
        let valid = message.recipients.compactMap(\.msisdn).filter { countryRefusal($0) == nil }
        let spooled = drainer != nil && earlier == nil && !valid.isEmpty
            && configuration.spoolThreshold.map { valid.count >= $0 } == true
        // A spooled message is routed when the drainer starts it, with the registrations of that moment.
        let registrations = try (spooled ? nil : app).map { try directory.registrations(app: $0.key, msisdns: valid) } ?? [:]
        let smsValidity = validUntil.map { $0 - now } ?? configuration.defaultSMSValidity
        var accepted = 0
        for recipient in message.recipients {
            switch recipient.result {
            case .failure(let error):
                reject([recipient.raw], reference: message.reference, parts: parts, error: error, into: &plan)
            case .success(let msisdn):
                if let region = countryRefusal(msisdn) {
                    logger.warning("gateway SMS refused by the account's country rule",
                                   ["account": .string(account.name), "msisdn": .msisdn(msisdn), "region": .string(region.text)])
                    reject([recipient.raw], reference: message.reference, parts: parts, error: Self.countryError(region), into: &plan)
                    continue
                }
                if !spooled {
                    let routed = Router.route(routing, app: app, registrations: registrations[msisdn] ?? [], policies: policies)
                    let (decision, region) = smsCountryRefusal(account, routed, msisdn: msisdn)
                    if let region, case .reject(.smsCountryNotAllowed) = decision {
                        reject([recipient.raw], reference: message.reference, parts: parts, error: Self.countryError(region),
                               into: &plan)
                        continue
                    }
                    plan.deliveries.append(Scheduler.NewDelivery(msisdn: msisdn, content: content, decision: decision,
                                                                 smsValidity: smsValidity))
                }
                plan.lines.append(CMResponseLine(to: recipient.raw, accepted: true, reference: message.reference, parts: parts,
                                                 details: nil, errorCode: .ok, messageID: messageID.text))
                if let earlier {
                    plan.superseded += earlier.recipients.filter { $0.msisdn == msisdn && !$0.delivery.isFinal }.map(\.key)
                }
                accepted += 1
            }
        }
        guard accepted > 0 else { return }
        if spooled { plan.spools.append(RecipientSpool(messageID: messageID, recipients: valid)) }
        plan.records.append(MessageRecord(
            content: content, account: account.productToken, appKey: app?.key, bodyType: message.bodyType.wireName,
            messageType: messageType, allowedChannels: message.allowedChannels, validUntil: validUntil,
            customGroupings: [message.customGrouping, message.customGrouping2, message.customGrouping3],
            dcs: message.dcs, richContent: message.richContent, fallbackFor: earlier?.id, createdAt: now))
    }

    /// Before a `fallbackFor` message is planned: the earlier message's spooled recipients are started, so
    /// its in-flight deliveries to the fallback's numbers exist to be superseded.
    private func startQueuedRecipients(ofEarlierMessagesIn submission: CMSubmission, account: Account) async throws {
        guard let drainer else { return }
        for entry in submission.messages {
            guard case .success(let message) = entry.result, let reference = message.fallbackFor,
                  let earlier = try latestMessage(account: account, idOrReference: reference),
                  !earlier.queued.isEmpty else { continue }
            try await drainer.drain(message: earlier.id)
        }
    }

    /// The checks that need the directory, the ledger or the clock.
    private func check(_ message: CMMessage, account: Account,
                       now: Timestamp) throws -> Result<(App?, Timestamp?, MessageView?), CMMessageError> {
        var app: App?
        if let key = message.appKey {
            guard let found = try directory.app(key: key), found.account == account.productToken else {
                return .failure(CMMessageError(code: .appNotAllowed, details: "appKey \(key.text) is not an app of this account"))
            }
            app = found
        }
        var validUntil: Timestamp?
        switch message.validity {
        case .absolute(let instant)?: validUntil = instant
        case .relative(let span)?: validUntil = now + span
        case nil: break
        }
        if let validUntil, validUntil <= now {
            return .failure(CMMessageError(code: .invalidField, details: "validity has already passed"))
        }
        var earlier: MessageView?
        if let reference = message.fallbackFor {
            guard message.allowedChannels == .only([.sms]) else {
                return .failure(CMMessageError(code: .invalidField, details: #"fallbackFor requires allowedChannels ["SMS"]"#))
            }
            earlier = try latestMessage(account: account, idOrReference: reference)
            guard earlier != nil else {
                return .failure(CMMessageError(code: .invalidField,
                                               details: "fallbackFor: no earlier message with id or reference \(reference)"))
            }
        }
        return .success((app, validUntil, earlier))
    }

    /// The account's country rule applied to a routing decision, logged when it caught something.
    func smsCountryRefusal(_ account: Account, _ decision: RoutingDecision,
                           msisdn: MSISDN) -> (decision: RoutingDecision, refused: RegionCode?) {
        let result = account.smsCountries.restrict(decision, msisdn: msisdn)
        if let region = result.refused {
            let mode = account.smsCountries.mode
            logger.warning(mode == .enforce ? "gateway SMS refused by the account's country rule"
                                            : "gateway SMS would be refused by the account's country rule (monitor mode: sent)",
                           ["account": .string(account.name), "msisdn": .msisdn(msisdn), "region": .string(region.text),
                            "mode": .string(mode.rawValue),
                            "outcome": .string(result.decision == decision ? "unchanged" : Self.describe(result.decision))])
        }
        return result
    }

    private static func describe(_ decision: RoutingDecision) -> String {
        switch decision {
        case .push: "push without SMS fallback"
        case .sms: "sms"
        case .reject: "rejected"
        }
    }

    /// CM's 401 ("The message was rejected") for a recipient in a region the account may not send SMS to.
    static func countryError(_ region: RegionCode) -> CMMessageError {
        CMMessageError(code: .messageRejected, details: "SMS to numbers in \(region.text) is not allowed for this account")
    }

    private func reject(_ recipients: [String], reference: String?, parts: Int, error: CMMessageError, into plan: inout Plan) {
        if plan.firstError == nil { plan.firstError = error }
        for raw in recipients.isEmpty ? [""] : recipients {
            plan.lines.append(CMResponseLine(to: raw, accepted: false, reference: reference, parts: parts,
                                             details: error.details, errorCode: error.code, messageID: nil))
        }
    }
}
