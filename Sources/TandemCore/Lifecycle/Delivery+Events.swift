extension Delivery {
    /// Feeds one event to the state machine and returns what must happen, in order.
    public mutating func handle(_ event: DeliveryEvent, now: Timestamp) -> [DeliveryAction] {
        var actions: [DeliveryAction] = []
        actions.reserveCapacity(6)  // an event's actions at most, but for a rare rejection (one allocation, not three)
        handle(event, now: now, into: &actions)
        return actions
    }

    /// Feeds one event to the state machine and appends what must happen to `actions`, in order (what was there is
    /// left as it is). For callers that collect many events' actions in one reused buffer: an array per event was
    /// an allocation per receipt, made on the scheduler's thread and freed on another, which glibc serves slowly.
    public mutating func handle(_ event: DeliveryEvent, now: Timestamp, into actions: inout [DeliveryAction]) {
        switch event {
        case .routed(let decision): routed(decision, now: now, into: &actions)
        case .pushAccepted(let device): pushAccepted(device, into: &actions)
        case .pushRejected(let device, let rejection): pushRejected(device, rejection, into: &actions)
        case .deliveryAcknowledged(let device): acknowledged(device, into: &actions)
        case .readReported(let device): read(device, into: &actions)
        case .timerFired(let kind): timerFired(kind, now: now, into: &actions)
        case .manualFallbackRequested: manualFallback(into: &actions)
        case .supersededBySMS: superseded(into: &actions)
        case .cancelledBySender: cancelledBySender(into: &actions)
        case .smsSubmitted(let submission): smsSubmitted(submission, now: now, into: &actions)
        case .smsReportReceived(let outcome): smsReport(outcome, into: &actions)
        case .smsPartReported(let reference, let outcome): smsPartReport(reference, outcome, into: &actions)
        case .expired: expire(into: &actions)
        }
    }

    // Each handler appends its actions to the caller's array and returns when it has none to add. None reserves
    // room: in a buffer shared by many events, reserving `count + n` each time would copy it over and over.

    private mutating func routed(_ decision: RoutingDecision, now: Timestamp, into actions: inout [DeliveryAction]) {
        switch state {
        case .awaitingRoute:
            break
        case .pushing, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return
        }
        switch decision {
        case .push(let plan):
            self.plan = plan
            for target in plan.targets { devices[target.deviceID] = DeviceProgress() }
            state = .pushing
            setStatus(.sent, into: &actions)
            actions.append(.sendPush(plan.targets, plan.policy))
            if let lifetime = plan.policy.lifetime.duration {
                actions.append(arm(.lifetime, at: now + lifetime))
            }
            if plan.smsAllowed {
                if let span = plan.policy.fallback.afterNoDeliveryAck { actions.append(arm(.noDeliveryAck, at: now + span)) }
                if let span = plan.policy.fallback.afterNoRead { actions.append(arm(.noRead, at: now + span)) }
            }
        case .sms(let route):
            routePolicy = route.policy
            setStatus(.sent, into: &actions)
            requestSMS(SMSCause(route.reason), terminatingPush: false, into: &actions)
        case .reject(let reason):
            rejectReason = reason
            finish(.rejected, into: &actions)
        }
    }

    private mutating func pushAccepted(_ device: DeviceID, into actions: inout [DeliveryAction]) {
        guard devices[device] != nil else { return }
        devices[device]?.accepted = true
        switch state {
        case .pushing:
            if status == .sent { setStatus(.accepted, into: &actions) }
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return
        }
    }

    private mutating func pushRejected(_ device: DeviceID, _ rejection: PushRejection, into actions: inout [DeliveryAction]) {
        guard let progress = devices[device], progress.rejection == nil else { return }
        devices[device]?.rejection = rejection
        // A dead token is dead whatever became of this delivery.
        if rejection == .tokenDead { actions.append(.invalidateRegistration(device)) }
        switch state {
        case .pushing:
            let allRefused = devices.allSatisfy { $0.progress.rejection != nil && !$0.progress.acknowledged && !$0.progress.read }
            if allRefused { pushFailedOutright(into: &actions) }
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return
        }
    }

    private mutating func acknowledged(_ device: DeviceID, into actions: inout [DeliveryAction]) {
        guard devices[device] != nil else { return }
        let first = !anyAcknowledged
        devices[device]?.acknowledged = true
        switch state {
        case .pushing:
            guard first, let plan else { return }
            // With an SMS fallback waiting on a read, delivery is a step; otherwise it is the outcome.
            if plan.smsAllowed && plan.policy.fallback.afterNoRead != nil {
                disarm(.noDeliveryAck, into: &actions)
                setStatus(.delivered, into: &actions)
                return
            }
            finish(.deliveredByPush, into: &actions)
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return
        }
    }

    private mutating func read(_ device: DeviceID, into actions: inout [DeliveryAction]) {
        guard devices[device] != nil else { return }
        devices[device]?.read = true
        switch state {
        case .pushing:
            finish(.readByPush, into: &actions)
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return
        }
    }

    private mutating func timerFired(_ kind: TimerKind, now: Timestamp, into actions: inout [DeliveryAction]) {
        // Cancelled, or re-armed for later: this firing no longer matters.
        guard let deadline = timers[kind], now >= deadline else { return }
        timers[kind] = nil
        switch state {
        case .pushing:
            let smsAllowed = plan?.smsAllowed ?? false
            switch kind {
            case .noDeliveryAck:
                if smsAllowed && !anyAcknowledged { requestSMS(.noDeliveryAck, terminatingPush: false, into: &actions) }
            case .noRead:
                if smsAllowed && !anyRead { requestSMS(.noRead, terminatingPush: false, into: &actions) }
            case .lifetime:
                finish(anyAcknowledged ? .deliveredByPush : .lifetimeExpired, into: &actions)
            case .smsValidity:
                return
            }
        case .awaitingSMSReport:
            switch kind {
            case .smsValidity: finish(.smsReportMissing, into: &actions)
            case .noDeliveryAck, .noRead, .lifetime: return
            }
        case .awaitingRoute, .awaitingSMSSubmit, .final:
            return
        }
    }

    private mutating func manualFallback(into actions: inout [DeliveryAction]) {
        guard manualFallbackAvailability == .available, let plan else { return }
        switch plan.policy.manualFallback {
        case .notAllowed: return
        case .keepPush: requestSMS(.manual, terminatingPush: false, into: &actions)
        case .terminatePush: requestSMS(.manual, terminatingPush: true, into: &actions)
        }
    }

    private mutating func superseded(into actions: inout [DeliveryAction]) {
        guard manualFallbackAvailability == .available, let plan, plan.policy.manualFallback == .terminatePush else {
            return
        }
        pushTerminated = true
        let live = liveDevices
        if !live.isEmpty { actions.append(.terminatePush(live)) }
        finish(.withdrawn, into: &actions)
    }

    private mutating func cancelledBySender(into actions: inout [DeliveryAction]) {
        switch state {
        case .awaitingRoute:
            finish(.cancelled, into: &actions)
        case .pushing:
            guard !devices.contains(where: { $0.progress.accepted }) else { return }
            pushTerminated = true
            let live = liveDevices
            if !live.isEmpty { actions.append(.terminatePush(live)) }
            finish(.cancelled, into: &actions)
        case .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return
        }
    }

    private mutating func smsSubmitted(_ submission: SMSSubmission, now: Timestamp, into actions: inout [DeliveryAction]) {
        switch state {
        case .awaitingSMSSubmit:
            sms = submission
            state = .awaitingSMSReport
            actions.append(arm(.smsValidity, at: now + smsValidity + smsReportWait))
            if status == .sent { setStatus(.accepted, into: &actions) }
        case .awaitingRoute, .pushing, .awaitingSMSReport, .final:
            return
        }
    }

    private mutating func smsReport(_ outcome: SMSOutcome, into actions: inout [DeliveryAction]) {
        switch state {
        case .awaitingSMSSubmit, .awaitingSMSReport:
            switch outcome {
            case .delivered: finish(.deliveredBySMS, into: &actions)
            case .failed: finish(.smsFailed, into: &actions)
            case .expired: finish(.smsExpired, into: &actions)
            }
        case .awaitingRoute, .pushing, .final:
            return
        }
    }

    /// A part's report: the first failed or expired part ends the SMS; it is delivered once every part of
    /// the submission is. Reports for ids of another submission, and repeats, change nothing.
    private mutating func smsPartReport(_ reference: String, _ outcome: SMSOutcome, into actions: inout [DeliveryAction]) {
        guard let sms, sms.references.contains(reference) else { return }
        switch state {
        case .awaitingSMSReport:
            break
        case .awaitingRoute, .pushing, .awaitingSMSSubmit, .final:
            return
        }
        switch outcome {
        case .failed, .expired:
            smsReport(outcome, into: &actions)
        case .delivered:
            var delivered = smsPartsDelivered ?? []
            guard !delivered.contains(reference) else { return }
            delivered.append(reference)
            smsPartsDelivered = delivered
            // Every distinct part id reported delivered (`delivered` holds each once); counted without a Set:
            // an SMS has a handful of parts, and this runs for every part report.
            var distinct = 0
            for (index, part) in sms.references.enumerated() where !sms.references[..<index].contains(part) { distinct += 1 }
            if delivered.count == distinct { smsReport(.delivered, into: &actions) }
        }
    }

    private mutating func expire(into actions: inout [DeliveryAction]) {
        switch state {
        case .pushing:
            finish(anyAcknowledged ? .deliveredByPush : .validityExpired, into: &actions)
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport:
            finish(.validityExpired, into: &actions)
        case .final:
            return
        }
    }

    // MARK: - Steps shared by the handlers

    /// Every push target refused: SMS if the policy and `allowedChannels` allow it, else Failed.
    private mutating func pushFailedOutright(into actions: inout [DeliveryAction]) {
        guard let plan, plan.smsAllowed, plan.policy.fallback.onPushFailure else { return finish(.pushFailed, into: &actions) }
        requestSMS(.pushFailed, terminatingPush: false, into: &actions)
    }

    /// Moves to the SMS, exactly once: the push's timers stop, the push is withdrawn if asked.
    private mutating func requestSMS(_ cause: SMSCause, terminatingPush: Bool, into actions: inout [DeliveryAction]) {
        guard !smsRequested else { return }
        smsRequested = true
        smsCause = cause
        state = .awaitingSMSSubmit
        disarm(.noDeliveryAck, into: &actions)
        disarm(.noRead, into: &actions)
        disarm(.lifetime, into: &actions)
        if terminatingPush {
            pushTerminated = true
            let live = liveDevices
            if !live.isEmpty { actions.append(.terminatePush(live)) }
        }
        actions.append(.sendSMS)
    }

    /// The one final status: stop every timer, record it, report it.
    private mutating func finish(_ resolution: Resolution, into actions: inout [DeliveryAction]) {
        self.resolution = resolution
        state = .final
        for (kind, _) in timers { actions.append(.cancel(kind)) }   // in TimerKind.allCases order
        timers = TimerDeadlines()
        setStatus(resolution.status, into: &actions)
        actions.append(.report(resolution.status))
    }

    private mutating func setStatus(_ new: DeliveryStatus, into actions: inout [DeliveryAction]) {
        guard new != status else { return }
        status = new
        actions.append(.record(new))
    }

    private mutating func arm(_ kind: TimerKind, at deadline: Timestamp) -> DeliveryAction {
        timers[kind] = deadline
        return .schedule(kind, at: deadline)
    }

    private mutating func disarm(_ kind: TimerKind, into actions: inout [DeliveryAction]) {
        guard timers.removeValue(forKey: kind) != nil else { return }
        actions.append(.cancel(kind))
    }
}
