extension Delivery {
    /// Feeds one event to the state machine and returns what must happen, in order.
    public mutating func handle(_ event: DeliveryEvent, now: Timestamp) -> [DeliveryAction] {
        switch event {
        case .routed(let decision): routed(decision, now: now)
        case .pushAccepted(let device): pushAccepted(device)
        case .pushRejected(let device, let rejection): pushRejected(device, rejection)
        case .deliveryAcknowledged(let device): acknowledged(device)
        case .readReported(let device): read(device)
        case .timerFired(let kind): timerFired(kind, now: now)
        case .manualFallbackRequested: manualFallback()
        case .supersededBySMS: superseded()
        case .smsSubmitted(let submission): smsSubmitted(submission, now: now)
        case .smsReportReceived(let outcome): smsReport(outcome)
        case .smsPartReported(let reference, let outcome): smsPartReport(reference, outcome)
        case .expired: expire()
        }
    }

    private mutating func routed(_ decision: RoutingDecision, now: Timestamp) -> [DeliveryAction] {
        switch state {
        case .awaitingRoute:
            break
        case .pushing, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return []
        }
        switch decision {
        case .push(let plan):
            self.plan = plan
            for target in plan.targets { devices[target.deviceID] = DeviceProgress() }
            state = .pushing
            var actions: [DeliveryAction] = []
            actions.reserveCapacity(5)
            setStatus(.sent, into: &actions)
            actions.append(.sendPush(plan.targets, plan.policy))
            if let lifetime = plan.policy.lifetime.duration {
                actions.append(arm(.lifetime, at: now + lifetime))
            }
            if plan.smsAllowed {
                if let span = plan.policy.fallback.afterNoDeliveryAck { actions.append(arm(.noDeliveryAck, at: now + span)) }
                if let span = plan.policy.fallback.afterNoRead { actions.append(arm(.noRead, at: now + span)) }
            }
            return actions
        case .sms(let route):
            routePolicy = route.policy
            var actions: [DeliveryAction] = []
            actions.reserveCapacity(2)
            setStatus(.sent, into: &actions)
            requestSMS(SMSCause(route.reason), terminatingPush: false, into: &actions)
            return actions
        case .reject(let reason):
            rejectReason = reason
            return finish(.rejected)
        }
    }

    private mutating func pushAccepted(_ device: DeviceID) -> [DeliveryAction] {
        guard devices[device] != nil else { return [] }
        devices[device]?.accepted = true
        switch state {
        case .pushing:
            var actions: [DeliveryAction] = []
            if status == .sent { setStatus(.accepted, into: &actions) }
            return actions
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return []
        }
    }

    private mutating func pushRejected(_ device: DeviceID, _ rejection: PushRejection) -> [DeliveryAction] {
        guard let progress = devices[device], progress.rejection == nil else { return [] }
        devices[device]?.rejection = rejection
        // A dead token is dead whatever became of this delivery.
        let invalidate: [DeliveryAction] = rejection == .tokenDead ? [.invalidateRegistration(device)] : []
        switch state {
        case .pushing:
            let allRefused = devices.allSatisfy { $0.progress.rejection != nil && !$0.progress.acknowledged && !$0.progress.read }
            return invalidate + (allRefused ? pushFailedOutright() : [])
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return invalidate
        }
    }

    private mutating func acknowledged(_ device: DeviceID) -> [DeliveryAction] {
        guard devices[device] != nil else { return [] }
        let first = !anyAcknowledged
        devices[device]?.acknowledged = true
        switch state {
        case .pushing:
            guard first, let plan else { return [] }
            // With an SMS fallback waiting on a read, delivery is a step; otherwise it is the outcome.
            if plan.smsAllowed && plan.policy.fallback.afterNoRead != nil {
                var actions: [DeliveryAction] = []
                disarm(.noDeliveryAck, into: &actions)
                setStatus(.delivered, into: &actions)
                return actions
            }
            return finish(.deliveredByPush)
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return []
        }
    }

    private mutating func read(_ device: DeviceID) -> [DeliveryAction] {
        guard devices[device] != nil else { return [] }
        devices[device]?.read = true
        switch state {
        case .pushing:
            return finish(.readByPush)
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport, .final:
            return []
        }
    }

    private mutating func timerFired(_ kind: TimerKind, now: Timestamp) -> [DeliveryAction] {
        // Cancelled, or re-armed for later: this firing no longer matters.
        guard let deadline = timers[kind], now >= deadline else { return [] }
        timers[kind] = nil
        switch state {
        case .pushing:
            let smsAllowed = plan?.smsAllowed ?? false
            switch kind {
            case .noDeliveryAck:
                return smsAllowed && !anyAcknowledged ? requestSMS(.noDeliveryAck, terminatingPush: false) : []
            case .noRead:
                return smsAllowed && !anyRead ? requestSMS(.noRead, terminatingPush: false) : []
            case .lifetime:
                return finish(anyAcknowledged ? .deliveredByPush : .lifetimeExpired)
            case .smsValidity:
                return []
            }
        case .awaitingSMSReport:
            switch kind {
            case .smsValidity: return finish(.smsExpired)
            case .noDeliveryAck, .noRead, .lifetime: return []
            }
        case .awaitingRoute, .awaitingSMSSubmit, .final:
            return []
        }
    }

    private mutating func manualFallback() -> [DeliveryAction] {
        guard manualFallbackAvailability == .available, let plan else { return [] }
        switch plan.policy.manualFallback {
        case .notAllowed: return []
        case .keepPush: return requestSMS(.manual, terminatingPush: false)
        case .terminatePush: return requestSMS(.manual, terminatingPush: true)
        }
    }

    private mutating func superseded() -> [DeliveryAction] {
        guard manualFallbackAvailability == .available, let plan, plan.policy.manualFallback == .terminatePush else {
            return []
        }
        pushTerminated = true
        let live = liveDevices
        var actions: [DeliveryAction] = live.isEmpty ? [] : [.terminatePush(live)]
        finish(.withdrawn, into: &actions)
        return actions
    }

    private mutating func smsSubmitted(_ submission: SMSSubmission, now: Timestamp) -> [DeliveryAction] {
        switch state {
        case .awaitingSMSSubmit:
            sms = submission
            state = .awaitingSMSReport
            var actions: [DeliveryAction] = []
            actions.reserveCapacity(2)
            actions.append(arm(.smsValidity, at: now + smsValidity))
            if status == .sent { setStatus(.accepted, into: &actions) }
            return actions
        case .awaitingRoute, .pushing, .awaitingSMSReport, .final:
            return []
        }
    }

    private mutating func smsReport(_ outcome: SMSOutcome) -> [DeliveryAction] {
        switch state {
        case .awaitingSMSSubmit, .awaitingSMSReport:
            switch outcome {
            case .delivered: return finish(.deliveredBySMS)
            case .failed: return finish(.smsFailed)
            case .expired: return finish(.smsExpired)
            }
        case .awaitingRoute, .pushing, .final:
            return []
        }
    }

    /// A part's report: the first failed or expired part ends the SMS; it is delivered once every part of
    /// the submission is. Reports for ids of another submission, and repeats, change nothing.
    private mutating func smsPartReport(_ reference: String, _ outcome: SMSOutcome) -> [DeliveryAction] {
        guard let sms, sms.references.contains(reference) else { return [] }
        switch state {
        case .awaitingSMSReport:
            break
        case .awaitingRoute, .pushing, .awaitingSMSSubmit, .final:
            return []
        }
        switch outcome {
        case .failed, .expired:
            return smsReport(outcome)
        case .delivered:
            var delivered = smsPartsDelivered ?? []
            guard !delivered.contains(reference) else { return [] }
            delivered.append(reference)
            smsPartsDelivered = delivered
            // Every distinct part id reported delivered (`delivered` holds each once); counted without a Set:
            // an SMS has a handful of parts, and this runs for every part report.
            var distinct = 0
            for (index, part) in sms.references.enumerated() where !sms.references[..<index].contains(part) { distinct += 1 }
            return delivered.count == distinct ? smsReport(.delivered) : []
        }
    }

    private mutating func expire() -> [DeliveryAction] {
        switch state {
        case .pushing:
            return finish(anyAcknowledged ? .deliveredByPush : .validityExpired)
        case .awaitingRoute, .awaitingSMSSubmit, .awaitingSMSReport:
            return finish(.validityExpired)
        case .final:
            return []
        }
    }

    // MARK: - Steps shared by the handlers

    /// Every push target refused: SMS if the policy and `allowedChannels` allow it, else Failed.
    private mutating func pushFailedOutright() -> [DeliveryAction] {
        guard let plan, plan.smsAllowed, plan.policy.fallback.onPushFailure else { return finish(.pushFailed) }
        return requestSMS(.pushFailed, terminatingPush: false)
    }

    /// Moves to the SMS, exactly once: the push's timers stop, the push is withdrawn if asked.
    private mutating func requestSMS(_ cause: SMSCause, terminatingPush: Bool) -> [DeliveryAction] {
        var actions: [DeliveryAction] = []
        requestSMS(cause, terminatingPush: terminatingPush, into: &actions)
        return actions
    }

    // Steps append their actions to the caller's array: building each step's own array and concatenating
    // them allocated several arrays per event.
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
    private mutating func finish(_ resolution: Resolution) -> [DeliveryAction] {
        var actions: [DeliveryAction] = []
        finish(resolution, into: &actions)
        return actions
    }

    private mutating func finish(_ resolution: Resolution, into actions: inout [DeliveryAction]) {
        self.resolution = resolution
        state = .final
        actions.reserveCapacity(actions.count + 6)
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
