import TandemCore

extension MessageIntake {
    /// A request after the checks: what to store and start, and the outcome to reply with.
    private struct Plan {
        var outcomes: [MessageOutcome] = []
        var deliveries: [Scheduler.NewDelivery] = []
        var records: [MessageRecord] = []
        var spools: [RecipientSpool] = []
        /// In-flight deliveries of earlier messages that a `fallbackFor` SMS supersedes.
        var superseded: [DeliveryKey] = []
    }

    func process(_ request: IntakeRequest, reply render: (IntakeOutcome) -> IntakeReply) async -> IntakeResult {
        let now = now()
        var plan = Plan()
        do {
            try await startQueuedRecipients(ofEarlierMessagesIn: request)
            for command in request.messages {
                try add(command, account: request.account, now: now, to: &plan)
            }
        } catch {
            logger.error("intake lookup failed", ["error": .string("\(error)")])
            return .failed
        }
        let outcome = IntakeOutcome(messages: plan.outcomes)
        let reply: WireReply
        switch render(outcome) {
        case .commit(let answer): reply = answer
        case .refuse(let answer): return .refused(answer)
        }

        var accepted = AcceptedRequest(messages: plan.records, spools: plan.spools)
        if let claim = request.idempotency {
            accepted.idempotency = IdempotencyRecord(account: request.account.productToken, key: claim.key,
                                                     requestDigest: claim.digest, status: reply.status,
                                                     contentType: reply.contentType, body: reply.body, createdAt: now)
        }
        do {
            if !plan.superseded.isEmpty {
                _ = try await scheduler.record(plan.superseded.map { ($0, DeliveryEvent.supersededBySMS) })
            }
            _ = try await scheduler.accept(plan.deliveries, request: accepted)
            if !plan.spools.isEmpty { await drainer?.wake() }
        } catch {
            logger.error("intake commit failed", ["error": .string("\(error)"), "deliveries": .int(Int64(plan.deliveries.count))])
            return .failed
        }
        return .stored(outcome, reply)
    }

    private func add(_ command: SendCommand, account: Account, now: Timestamp, to plan: inout Plan) throws {
        let (app, validUntil, earlier): (App?, Timestamp?, MessageView?)
        switch try check(command, account: account, now: now) {
        case .failure(let rejection):
            plan.outcomes.append(.rejected(rejection))
            return
        case .success(let values):
            (app, validUntil, earlier) = values
        }

        // getrandom(2) on Linux: unpredictable ids.
        var generator = SystemRandomNumberGenerator()
        // Time-ordered: the messages' unique index on it then grows at its end (a random GUID cost a page write each).
        let messageID = GUID.timeOrdered(unixMilliseconds: now.milliseconds, using: &generator)
        let content = MessageContent(messageID: messageID, sender: command.sender, body: command.body,
                                     reference: command.reference, app: app?.key, forceUCS2: command.dcs == 8)
        let messageType = command.messageType ?? app?.defaultMessageType ?? .default
        let routing = RoutingRequest(allowedChannels: command.allowedChannels, appKey: command.appKey,
                                     messageType: command.messageType)
        // The account's country rule: a recipient only SMS can reach (no app, or Push not allowed) in a
        // refused region is rejected here, spooled or not; the others are decided once routed.
        let smsOnly = command.allowedChannels.allows(.sms) && (routing.appKey == nil || !command.allowedChannels.allows(.push))
        let countryRefusal = { (msisdn: MSISDN) -> RegionCode? in
            guard smsOnly, account.smsCountries.mode == .enforce else { return nil }
            let region = CallingCodes.region(of: msisdn)
            return account.smsCountries.countries.permits(region) ? nil : region
        }
        let numbers: [MSISDN] = command.recipients.compactMap { if case .msisdn(let msisdn) = $0 { msisdn } else { nil } }
        let valid = numbers.filter { countryRefusal($0) == nil }
        let spooled = drainer != nil && earlier == nil && !valid.isEmpty
            && configuration.spoolThreshold.map { valid.count >= $0 } == true
        // A spooled message is routed when the drainer starts it, with the registrations of that moment.
        let registrations = try (spooled ? nil : app).map { try directory.registrations(app: $0.key, msisdns: valid) } ?? [:]
        let smsValidity = validUntil.map { $0 - now } ?? configuration.defaultSMSValidity
        var outcomes: [RecipientOutcome] = []
        outcomes.reserveCapacity(command.recipients.count)
        for recipient in command.recipients {
            guard case .msisdn(let msisdn) = recipient else {
                outcomes.append(.rejected(.unknownGroup("")))
                continue
            }
            if let region = countryRefusal(msisdn) {
                logger.warning("SMS refused by the account's country rule",
                               ["account": .string(account.name), "msisdn": .msisdn(msisdn), "region": .string(region.text)])
                outcomes.append(.rejected(.smsCountryNotAllowed(region)))
                continue
            }
            if !spooled {
                let routed = Router.route(routing, app: app, registrations: registrations[msisdn] ?? [], policies: policies)
                let (decision, region) = smsCountryRefusal(account, routed, msisdn: msisdn)
                if let region, case .reject(.smsCountryNotAllowed) = decision {
                    outcomes.append(.rejected(.smsCountryNotAllowed(region)))
                    continue
                }
                plan.deliveries.append(Scheduler.NewDelivery(msisdn: msisdn, content: content, decision: decision,
                                                             smsValidity: smsValidity))
            }
            if let earlier {
                plan.superseded += earlier.recipients.filter { $0.msisdn == msisdn && !$0.delivery.isFinal }.map(\.key)
            }
            outcomes.append(.accepted)
        }
        plan.outcomes.append(.accepted(id: messageID, recipients: outcomes))
        guard outcomes.contains(.accepted) else { return }
        if spooled { plan.spools.append(RecipientSpool(messageID: messageID, recipients: valid)) }
        plan.records.append(MessageRecord(
            content: content, account: account.productToken, appKey: app?.key, bodyType: command.bodyType,
            messageType: messageType, allowedChannels: command.allowedChannels, validUntil: validUntil,
            customGroupings: command.customGroupings, dcs: command.dcs, richContent: command.richContent,
            fallbackFor: earlier?.id, createdAt: now))
    }

    /// Before a `fallbackFor` message is planned: the earlier message's spooled recipients are started, so
    /// its in-flight deliveries to the fallback's numbers exist to be superseded.
    private func startQueuedRecipients(ofEarlierMessagesIn request: IntakeRequest) async throws {
        guard let drainer else { return }
        for command in request.messages {
            guard let reference = command.fallbackFor,
                  let earlier = try latestMessage(account: request.account, idOrReference: reference),
                  !earlier.queued.isEmpty else { continue }
            try await drainer.drain(message: earlier.id)
        }
    }

    /// The checks that need the directory, the ledger or the clock.
    private func check(_ command: SendCommand, account: Account,
                       now: Timestamp) throws -> Result<(App?, Timestamp?, MessageView?), MessageRejection> {
        var app: App?
        if let key = command.appKey {
            guard let found = try directory.app(key: key), found.account == account.productToken else {
                return .failure(.unknownApp(key))
            }
            app = found
        }
        let validUntil = command.validity?.expiry(acceptedAt: now)
        if let validUntil, validUntil <= now { return .failure(.validityPassed) }
        var earlier: MessageView?
        if let reference = command.fallbackFor {
            guard command.allowedChannels == .only([.sms]) else { return .failure(.fallbackRequiresSMSOnly) }
            earlier = try latestMessage(account: account, idOrReference: reference)
            guard earlier != nil else { return .failure(.fallbackTargetNotFound(reference)) }
        }
        return .success((app, validUntil, earlier))
    }

    /// The account's country rule applied to a routing decision, logged when it caught something.
    func smsCountryRefusal(_ account: Account, _ decision: RoutingDecision,
                           msisdn: MSISDN) -> (decision: RoutingDecision, refused: RegionCode?) {
        let result = account.smsCountries.restrict(decision, msisdn: msisdn)
        if let region = result.refused {
            let mode = account.smsCountries.mode
            logger.warning(mode == .enforce ? "SMS refused by the account's country rule"
                                            : "SMS would be refused by the account's country rule (monitor mode: sent)",
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
}
