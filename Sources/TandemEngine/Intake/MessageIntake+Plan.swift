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
            let addressed = try await resolvePushAddresses(in: request, now: now)
            for index in request.messages.indices {  // by index: each command is borrowed, not copied
                try await add(request.messages[index], account: request.account, knownApps: request.knownApps, addressed: addressed,
                        now: now, to: &plan)
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
            return .failure(error)
        }
        for (index, message) in outcome.messages.enumerated() {
            guard case .accepted(_, let recipients) = message else { continue }
            metrics.accepted(api: request.messages[index].api, recipients: recipients.count { $0 == .accepted })
        }
        return .stored(outcome, reply)
    }

    private func add(_ command: SendCommand, account: Account, knownApps: [App],
                     addressed: [PushAddress: Result<(App, Registration), RecipientRejection>],
                     now: Timestamp, to plan: inout Plan) async throws {
        let (app, validUntil, earlier): (App?, Timestamp?, MessageView?)
        switch try await check(command, account: account, knownApps: knownApps, addressed: addressed, now: now) {
        case .failure(let rejection):
            plan.outcomes.append(.rejected(rejection))
            return
        case .success(let values):
            (app, validUntil, earlier) = values
        }

        // Time-ordered: the messages' unique index on it then grows at its end (a random GUID cost a page write each).
        let messageID = self.messageID(now)
        var presentation = command.$presentation
        // A BWMI app's devices parse only BWMI's payload: a message that asks for no presentation gets its managed shape.
        if let app, presentation.isEmpty, try await directory.rendersBWMIPushes(app: app.key) {
            var managed = PushPresentation()
            managed.bwmi = .managed(bid: command.reference, sentAt: now.milliseconds)
            presentation = SharedPresentation(wrappedValue: managed)
        }
        let content = MessageContent(messageID: messageID, sender: command.sender, body: command.body,
                                     reference: command.reference, app: app?.key, forceUCS2: command.dcs == 8,
                                     shared: presentation)
        let messageType = command.messageType ?? app?.defaultMessageType ?? .default
        let routing = RoutingRequest(allowedChannels: command.allowedChannels, appKey: app?.key,
                                     messageType: command.messageType)
        // The account's country rule: a recipient only SMS can reach (no app, or Push not allowed) in a
        // refused region is rejected here, spooled or not; the others are decided once routed.
        let smsOnly = command.allowedChannels.allows(.sms) && (routing.appKey == nil || !command.allowedChannels.allows(.push))
        let countryRefusal = { (msisdn: MSISDN) -> RegionCode? in
            guard smsOnly, account.smsCountries.mode == .enforce, account.smsCountries.countries != .anywhere else { return nil }
            let region = CallingCodes.region(of: msisdn)
            return account.smsCountries.countries.permits(region) ? nil : region
        }
        // The numbers the country rule lets through: counted first, listed only when a spool or the registry
        // needs them (a message for one number without an app allocates no list).
        let passes = { (recipient: Recipient) -> MSISDN? in
            if case .msisdn(let msisdn) = recipient, countryRefusal(msisdn) == nil { msisdn } else { nil }
        }
        let validCount = command.recipients.count { passes($0) != nil }
        let spooled = drainer != nil && earlier == nil && validCount > 0
            && configuration.spoolThreshold.map { validCount >= $0 } == true
        let valid = spooled || app != nil ? command.recipients.compactMap(passes) : []
        // A spooled message is routed when the drainer starts it, with the registrations of that moment.
        var registrations: [MSISDN: [Registration]] = [:]
        if !spooled, let app { registrations = try await directory.registrations(app: app.key, msisdns: valid) }
        let smsValidity = validUntil.map { $0 - now } ?? configuration.defaultSMSValidity
        var outcomes: [RecipientOutcome] = []
        outcomes.reserveCapacity(command.recipients.count)
        for recipient in command.recipients {
            let msisdn: MSISDN
            switch recipient {
            case .msisdn(let number):
                msisdn = number
            case .registration, .pushAddress, .group:
                // `check` refused registrations and groups without an app; a push address without one named
                // no app of the account (else its app would be the message's) and is refused alone.
                guard let app else {
                    guard case .pushAddress(let address) = recipient else {
                        preconditionFailure("a device recipient without an app passed the checks")
                    }
                    if case .failure(let rejection)? = addressed[address] {
                        outcomes.append(.rejected(rejection))
                    } else {
                        outcomes.append(.rejected(.unknownPushApp(address.app)))
                    }
                    continue
                }
                switch try await device(recipient, app: app, addressed: addressed) {
                case .failure(let rejection):
                    outcomes.append(.rejected(rejection))
                case .success(let registration):
                    let decision = Router.route(routing, app: app, registration: registration, policies: policies)
                    if let rejection = oversize(content, decision) {
                        outcomes.append(.rejected(rejection))
                        continue
                    }
                    plan.deliveries.append(Scheduler.NewDelivery(recipient: .device(registration.deviceID), content: content,
                                                                 decision: decision, smsValidity: smsValidity))
                    outcomes.append(.accepted)
                }
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
                if let rejection = oversize(content, decision) {
                    outcomes.append(.rejected(rejection))
                    continue
                }
                plan.deliveries.append(Scheduler.NewDelivery(recipient: .msisdn(msisdn), content: content, decision: decision,
                                                             smsValidity: smsValidity))
            }
            if let earlier {
                plan.superseded += earlier.recipients.filter { $0.recipient == .msisdn(msisdn) && !$0.delivery.isFinal }.map(\.key)
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
            fallbackFor: earlier?.id, createdAt: now, api: command.api, extra: command.extra))
    }

    /// Before a `fallbackFor` message is planned: the earlier message's spooled recipients are started, so
    /// its in-flight deliveries to the fallback's numbers exist to be superseded.
    private func startQueuedRecipients(ofEarlierMessagesIn request: IntakeRequest) async throws {
        guard let drainer else { return }
        for index in request.messages.indices {
            guard let reference = request.messages[index].fallbackFor,
                  let earlier = try await latestMessage(account: request.account, idOrReference: reference),
                  !earlier.queued.isEmpty else { continue }
            try await drainer.drain(message: earlier.id)
        }
    }

    /// The checks that need the directory, the ledger or the clock. The message's app is its `appKey`'s,
    /// else that of its first push address that names an app.
    private func check(_ command: SendCommand, account: Account, knownApps: [App],
                       addressed: [PushAddress: Result<(App, Registration), RecipientRejection>],
                       now: Timestamp) async throws -> Result<(App?, Timestamp?, MessageView?), MessageRejection> {
        var app: App?
        if let key = command.appKey {
            var found = knownApps.first { $0.key == key }
            if found == nil { found = try await directory.app(key: key) }
            guard let found, found.account == account.productToken else {
                return .failure(.unknownApp(key))
            }
            app = found
        } else {
            app = command.recipients.lazy.compactMap { recipient -> App? in
                guard case .pushAddress(let address) = recipient, case .success(let (found, _))? = addressed[address] else { return nil }
                return found
            }.first
        }
        // A push address names its own app; registrations and groups need the message's.
        let needsApp = command.recipients.contains { recipient in
            switch recipient {
            case .msisdn, .pushAddress: false
            case .registration, .group: true
            }
        }
        if needsApp && app == nil { return .failure(.appRequiredForPushRecipients) }
        let validUntil = command.validity?.expiry(acceptedAt: now)
        if let validUntil, validUntil <= now { return .failure(.validityPassed) }
        var earlier: MessageView?
        if let reference = command.fallbackFor {
            guard command.allowedChannels == .only([.sms]) else { return .failure(.fallbackRequiresSMSOnly) }
            earlier = try await latestMessage(account: account, idOrReference: reference)
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

    /// Resolves every push address of the request once: its app (by app key, else sender id, among the
    /// account's apps) and its registration (created when the token is new).
    private func resolvePushAddresses(in request: IntakeRequest,
                                      now: Timestamp) async throws -> [PushAddress: Result<(App, Registration), RecipientRejection>] {
        var resolved: [PushAddress: Result<(App, Registration), RecipientRejection>] = [:]
        for index in request.messages.indices {
            for case .pushAddress(let address) in request.messages[index].recipients where resolved[address] == nil {
                guard let app = try await pushApp(named: address.app, account: request.account) else {
                    resolved[address] = .failure(.unknownPushApp(address.app))
                    continue
                }
                let registration = try await addresses.addressedRegistration(app: app.key, platform: address.platform,
                                                                             token: address.token, at: now)
                resolved[address] = .success((app, registration))
            }
        }
        return resolved
    }

    /// The account's app a push address names: by app key, else by sender id.
    private func pushApp(named name: String, account: Account) async throws -> App? {
        if let key = AppKey(name), let app = try await directory.app(key: key), app.account == account.productToken { return app }
        return try await directory.app(account: account.productToken, senderID: name)
    }

    /// The registration a device recipient names, if it belongs to `app`.
    private func device(_ recipient: Recipient, app: App,
                        addressed: [PushAddress: Result<(App, Registration), RecipientRejection>]) async throws -> Result<Registration, RecipientRejection> {
        switch recipient {
        case .registration(let id):
            guard let registration = try await directory.registration(app: app.key, device: id) else { return .failure(.unknownRegistration(id)) }
            return .success(registration)
        case .pushAddress(let address):
            switch addressed[address] {
            case .success(let (found, registration))?:
                return found.key == app.key ? .success(registration) : .failure(.otherApp(address.app))
            case .failure(let rejection)?: return .failure(rejection)
            case nil: return .failure(.unknownPushApp(address.app))
            }
        case .group(let name):
            return .failure(.unknownGroup(name))
        case .msisdn:
            preconditionFailure("numbers are routed by the hybrid router")
        }
    }

    /// The refusal of a push whose rendered payload would exceed its provider's limit on some target's platform.
    private func oversize(_ content: MessageContent, _ decision: RoutingDecision) -> RecipientRejection? {
        guard let payloads, !content.$presentation.isEmpty, case .push(let plan) = decision else { return nil }
        for platform in Set(plan.targets.map(\.platform)) {
            if let (bytes, limit) = payloads.oversize(content, platform: platform) {
                return .payloadTooLarge(platform, bytes: bytes, limit: limit)
            }
        }
        return nil
    }
}
