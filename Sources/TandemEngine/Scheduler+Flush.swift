import TandemCore

extension Scheduler {
    /// Processes queued commands batch by batch until the queue is empty.
    func flushLoop() async {
        while !queue.isEmpty {
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            await process(batch)
        }
        flushing = false
    }

    /// One command's share of a batch, answered once the batch committed.
    private enum Reply {
        case keys(CheckedContinuation<[DeliveryKey], any Error>, range: Range<Int>)
        case outcomes(CheckedContinuation<[EventOutcome], any Error>?, [EventOutcome])
    }

    private func process(_ batch: [Command]) async {
        let now = clock.now()
        var inserts: [NewDeliveryRecord] = []
        var started: [(new: NewDelivery, delivery: Delivery, actions: [DeliveryAction])] = []
        var changes: [DeliveryChange] = []
        var changed: [(key: DeliveryKey, actions: [DeliveryAction], isTimer: Bool, touchesSMS: Bool)] = []
        var late: [(DeliveryKey, DeliveryEvent)] = []
        /// Each changed delivery as it was before this batch, to restore if the commit fails.
        var before: [DeliveryKey: Delivery] = [:]
        var replies: [Reply] = []
        var requests: [AcceptedRequest] = []
        // Sized up front: a bulk batch holds thousands, and growing these copies every element several times.
        var (startCount, eventCount) = (0, 0)
        for command in batch {
            switch command {
            case .start(let news, _, _): startCount += news.count
            case .events(let events, _): eventCount += events.count
            }
        }
        inserts.reserveCapacity(startCount)
        started.reserveCapacity(startCount)
        changes.reserveCapacity(eventCount)
        changed.reserveCapacity(eventCount)
        before.reserveCapacity(eventCount)

        for command in batch {
            switch command {
            case .start(let news, let request, let continuation):
                if !request.isEmpty { requests.append(request) }
                let first = started.count
                for new in news {
                    var delivery = Delivery(smsValidity: new.smsValidity)
                    let event = new.start
                    let actions = delivery.handle(event, now: now)
                    inserts.append(NewDeliveryRecord(msisdn: new.msisdn, content: new.content, delivery: delivery, event: event,
                                                     at: now, effects: PersistedEffects(actions: actions)))
                    started.append((new, delivery, actions))
                }
                replies.append(.keys(continuation, range: first..<started.count))
            case .events(let events, let continuation):
                var outcomes: [EventOutcome] = []
                for (key, event) in events {
                    guard let inFlight = entries[key] else {
                        late.append((key, event))
                        outcomes.append(.loggedAfterFinal)
                        continue
                    }
                    let previous = inFlight.entry.delivery
                    let actions = inFlight.entry.delivery.handle(event, now: now)
                    outcomes.append(.applied)
                    // A timer that fired where it no longer matters changed nothing: not an event worth a write.
                    if case .timerFired = event, actions.isEmpty, inFlight.entry.delivery == previous { continue }
                    if before[key] == nil { before[key] = previous }
                    changes.append(DeliveryChange(key: key, delivery: inFlight.entry.delivery, event: event, at: now,
                                                  effects: PersistedEffects(actions: actions)))
                    var isTimer = false
                    if case .timerFired = event { isTimer = true }
                    changed.append((key, actions, isTimer, inFlight.entry.delivery.sms != nil))
                }
                replies.append(.outcomes(continuation, outcomes))
            }
        }

        let keys: [DeliveryKey]
        do {
            keys = inserts.isEmpty && changes.isEmpty && requests.isEmpty
                ? [] : try await store.commit(requests: requests, inserts: inserts, changes: changes)
            for (key, event) in late { try await store.appendLateEvent(event, to: key, at: now) }
        } catch {
            for (key, delivery) in before { entries[key]?.entry.delivery = delivery }
            logger.error("delivery commit failed", ["error": .string("\(error)"), "commands": .int(Int64(batch.count))])
            // Timer events that could not be committed are tried again shortly.
            for item in changed where item.isTimer { retryTimers(of: item.key, after: now) }
            for reply in replies {
                switch reply {
                case .keys(let continuation, _): continuation.resume(throwing: error)
                case .outcomes(let continuation, _): continuation?.resume(throwing: error)
                }
            }
            return
        }

        var work: [Dispatcher.Work] = []
        for (item, key) in zip(started, keys) {
            let entry = Entry(key: key, msisdn: item.new.msisdn, content: item.new.content, delivery: item.delivery)
            if !entry.delivery.isFinal { entries[key] = InFlight(entry) }
            trackSMSSubmission(of: entry)
            act(item.actions, key: key, entry: entry, into: &work)
        }
        for item in changed {
            guard let entry = entries[item.key]?.entry else { continue }
            if item.touchesSMS { indexSMSParts(of: entry, final: entry.delivery.isFinal) }
            trackSMSSubmission(of: entry)
            logFallback(item.actions, of: entry)
            if entry.delivery.isFinal { entries[item.key] = nil }
            act(item.actions, key: item.key, entry: entry, into: &work)
        }
        dispatch(work)
        for reply in replies {
            switch reply {
            case .keys(let continuation, let range): continuation.resume(returning: Array(keys[range]))
            case .outcomes(let continuation, let outcomes): continuation?.resume(returning: outcomes)
            }
        }
    }

    /// One info line when a push falls back to SMS (a notable event for operators; first-choice SMS, as
    /// frequent as bulk sends, are not logged).
    private func logFallback(_ actions: [DeliveryAction], of entry: Entry) {
        guard let cause = entry.delivery.smsCause, cause.isFallback,
              actions.contains(where: { if case .sendSMS = $0 { true } else { false } }) else { return }
        let why = switch cause {
        case .noRead: "the push was not read within the policy's window"
        case .noDeliveryAck: "the push was not acknowledged within the policy's window"
        case .pushFailed: "every device refused the push"
        case .manual: "the sender asked for the SMS"
        case .noAppKey, .pushNotAllowed, .noPushableDevice, .notificationsDisabled: cause.rawValue
        }
        logger.info("falling back to SMS: \(why)", ["delivery": .int(entry.key.rawValue), "cause": .string(cause.rawValue),
                                                     "message": .string(entry.content.messageID.text),
                                                     "msisdn": .msisdn(entry.msisdn)])
    }

    /// After the commit: timers into the wheel; network actions are collected into `work` for ``dispatch(_:)``.
    func act(_ actions: [DeliveryAction], key: DeliveryKey, entry: Entry, into work: inout [Dispatcher.Work]) {
        var network = false
        for action in actions {
            switch action {
            case .schedule(let kind, let deadline):
                arm(kind, of: key, at: deadline)
            case .cancel(let kind):
                wheel.cancel(Self.timerID(key, kind))
            case .sendPush, .terminatePush, .sendSMS:
                network = true
            case .invalidateRegistration, .record, .report:
                break
            }
        }
        if network { work.append(Dispatcher.Work(actions: actions, context: entry)) }
    }

    /// Hands a batch's network actions to the dispatcher; their results come back as events, in batches.
    func dispatch(_ work: [Dispatcher.Work]) {
        guard !work.isEmpty else { return }
        dispatcher.dispatch(work) { [weak self] events in
            guard let self else { return }
            do {
                _ = try await self.record(events)
            } catch {
                self.logger.error("provider results not recorded", [
                    "deliveries": .string(events.map { String($0.0.rawValue) }.joined(separator: ",")),
                    "events": .string(events.map(\.1.logKind).joined(separator: ",")), "error": .string("\(error)"),
                ])
            }
        }
    }
}
