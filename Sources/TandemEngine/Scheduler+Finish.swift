import TandemCore

extension Scheduler {
    /// Starts the pipeline task: the finish loop while there is work, parked in the inbox in between. It holds the
    /// scheduler only while the loop runs, and ends once the scheduler is gone (its `deinit` stops the inbox).
    func startPipeline() {
        pipelineStarted = true
        Task { [weak self, inbox] in
            while !inbox.isStopped {
                do {
                    guard let scheduler = self else { return }
                    await scheduler.finishLoop()
                }
                await inbox.park()
            }
        }
    }

    /// Answers prepared batches in order, each once its commit's outcome is known, preparing the next batch
    /// as soon as there is room for its commit.
    func finishLoop() async {
        finishing = true
        // Before stopping, receipts submitted meanwhile are taken in (and the watch ends only if there are none).
        while !prepared.isEmpty || moveSubmitted(endingWatch: true) {
            // Only the commit is held across the wait: the batch's buffers stay referenced by `prepared` alone, so
            // that they come back unshared, to be reused.
            guard let commit = prepared.first?.commit else {
                prepareQueued()
                continue
            }
            let outcome = await commit.outcome()
            switch outcome {
            case .success(let keys):
                var batch = prepared.removeFirst()
                _ = moveSubmitted(endingWatch: false)
                prepareQueued()
                await act(on: batch, keys: keys)
                keepSpare(&batch.changed, \.changed)
                keepSpare(&batch.changes, \.changes)
                keepSpare(&batch.previous, \.previous)
                keepSpare(&batch.actions, \.actions)
                keepSpare(&batch.replies, \.replies)
            case .failure(let error):
                // Every later batch was applied on top of this one and its commit is on the same chain, so
                // none of them will be applied either: undo them all, newest first, and start a new chain.
                let failed = prepared
                prepared.removeAll()
                chain = CommitChain()
                for later in failed.reversed() {
                    for event in later.changed.reversed() { event.inFlight.entry.delivery = later.previous[event.change] }
                }
                for later in failed { fail(later, with: error) }
                prepareQueued()
            }
        }
        finishing = false
    }

    /// A batch whose commit failed (or whose chain broke before it): its deliveries were restored already;
    /// every caller gets the error and its timer events are tried again shortly.
    private func fail(_ batch: PreparedBatch, with error: any Error) {
        logger.error("delivery commit failed", ["error": .string("\(error)"), "commands": .int(Int64(batch.commands))])
        for item in batch.changed where item.isTimer { retryTimers(of: item.key, after: batch.now) }
        for reply in batch.replies {
            switch reply {
            case .keys(let continuation, _): continuation.resume(throwing: error)
            case .outcomes(let continuation, _): continuation?.resume(throwing: error)
            case .receipt(let completion, _): completion(.failure(error))
            }
        }
    }

    /// After the commit: the table, the SMS indexes, timers and network actions; then the callers.
    private func act(on batch: PreparedBatch, keys: [DeliveryKey]) async {
        var work: [Dispatcher.Work] = []
        // By index, reading the batch in place: a started item or a change is not copied as a whole.
        // On a cluster node, deliveries of a partition whose lease lapsed since the batch was prepared are not acted on:
        // the partition is dropped, and loaded again (what the commit decided resumed then) if the node still holds it.
        var lapsed: Set<Int> = []
        for index in batch.started.indices {
            let key = keys[index]
            let entry = Entry(key: key, recipient: batch.started[index].new.recipient, content: batch.started[index].new.content,
                              delivery: batch.started[index].delivery)
            metrics.started(entry.delivery)
            guard mayAct(on: key) else {
                if let ownership { lapsed.insert(ownership.map.partition(of: key)) }
                continue
            }
            if !entry.delivery.isFinal { entries[key] = InFlight(entry, acceptedAt: batch.now) }
            trackSMSSubmission(of: entry)
            act(batch.started[index].actions[...], key: key, entry: entry, into: &work)
        }
        for event in batch.changed {
            count(batch.changes[event.change].event)
            guard mayAct(on: event.key) else {
                if let ownership { lapsed.insert(ownership.map.partition(of: event.key)) }
                continue
            }
            act(on: event, batch.changes[event.change].delivery, actions: batch.actions[event.actions], into: &work)
        }
        if !lapsed.isEmpty { drop(lapsed.sorted()) }
        dispatch(work)
        updateGauges()
        // Late events are logged, together, before their callers are answered (a read after a Default push was
        // delivered is one: one write per batch, not one per event); if that fails, those callers get the error.
        var lateFailure: (any Error)?
        do {
            try await store.appendLateEvents(batch.late, at: batch.now)
        } catch {
            lateFailure = error
            logger.error("late events not recorded", [
                "deliveries": .string(batch.late.map { String($0.0.rawValue) }.joined(separator: ",")),
                "events": .string(batch.late.map(\.1.logKind).joined(separator: ",")), "error": .string("\(error)"),
            ])
        }
        for reply in batch.replies {
            switch reply {
            case .keys(let continuation, let range):
                continuation.resume(returning: Array(keys[range]))
            case .outcomes(let continuation, let outcomes):
                if let lateFailure, outcomes.contains(.loggedAfterFinal) {
                    continuation?.resume(throwing: lateFailure)
                } else {
                    continuation?.resume(returning: outcomes)
                }
            case .receipt(let completion, let hasLate):
                if let lateFailure, hasLate {
                    completion(.failure(lateFailure))
                } else {
                    completion(.success(.recorded))
                }
            }
        }
    }

    /// Counts an applied (committed) event that the metrics name: an app's receipt, an SMS part's delivery report.
    private func count(_ event: DeliveryEvent) {
        switch event {
        case .deliveryAcknowledged: metrics.receipt(.delivered)
        case .readReported: metrics.receipt(.read)
        case .smsPartReported(_, let outcome): metrics.reported(outcome)
        default: break
        }
    }

    /// After the commit, for one applied event: `delivery` is the delivery just after it (borrowed from the batch; an
    /// `Entry` is made only for network actions).
    private func act(on event: AppliedEvent, _ delivery: Delivery, actions: ArraySlice<DeliveryAction>,
                     into work: inout [Dispatcher.Work]) {
        indexSMSParts(of: event.key, delivery, final: delivery.isFinal)
        trackSMSSubmission(of: event.key, delivery)
        logFallback(actions, of: event.key, delivery, recipient: event.inFlight.entry)
        if event.isTimer, delivery.resolution == .smsReportMissing {
            logMissingReport(of: event.key, delivery, recipient: event.inFlight.entry)
        }
        // No later batch changed it: an event for a final delivery is late.
        if delivery.isFinal {
            entries[event.key] = nil
            metrics.finished(delivery, after: event.inFlight.acceptedAt.map { clock.now() - $0 })
        }
        act(actions, key: event.key, entry: Entry(key: event.key, recipient: event.inFlight.entry.recipient,
                                                  content: event.inFlight.entry.content, delivery: delivery), into: &work)
    }

    /// One info line when a push falls back to SMS (a notable event for operators; first-choice SMS, as
    /// frequent as bulk sends, are not logged).
    private func logFallback(_ actions: ArraySlice<DeliveryAction>, of key: DeliveryKey, _ delivery: Delivery,
                             recipient entry: Entry) {
        guard let cause = delivery.smsCause, cause.isFallback,
              actions.contains(where: { if case .sendSMS = $0 { true } else { false } }) else { return }
        metrics.fellBack(cause)
        let why = switch cause {
        case .noRead: "the push was not read within the policy's window"
        case .noDeliveryAck: "the push was not acknowledged within the policy's window"
        case .pushFailed: "every device refused the push"
        case .manual: "the sender asked for the SMS"
        case .noAppKey, .pushNotAllowed, .noPushableDevice, .notificationsDisabled: cause.rawValue
        }
        logger.info("falling back to SMS: \(why)", ["delivery": .int(key.rawValue), "cause": .string(cause.rawValue),
                                                     "message": .string(entry.content.messageID.text),
                                                     "recipient": .string(entry.recipient.description)])
    }

    /// One info line when an SMS ends without its final report (as notable as a fallback, and as frequent as SMS
    /// where no reports are asked for): with Kannel, where a DLR lost while Tandem was down shows (see the
    /// README on smsbox's `http-request-retry`).
    private func logMissingReport(of key: DeliveryKey, _ delivery: Delivery, recipient entry: Entry) {
        logger.info("SMS ended without a delivery report: none came by the end of its validity and smsReportWait", [
            "delivery": .int(key.rawValue), "provider": .string(delivery.sms?.provider ?? ""),
            "references": .string(delivery.sms?.references.joined(separator: ",") ?? ""),
            "message": .string(entry.content.messageID.text), "recipient": .string(entry.recipient.description),
        ])
    }

    /// After the commit: timers into the wheel; network actions are collected into `work` for ``dispatch(_:)``.
    func act(_ actions: ArraySlice<DeliveryAction>, key: DeliveryKey, entry: @autoclosure () -> Entry,
             into work: inout [Dispatcher.Work]) {
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
        if network { work.append(Dispatcher.Work(actions: Array(actions), context: entry())) }
    }

    /// Hands a batch's network actions to the dispatcher; their results come back as events, in batches.
    func dispatch(_ work: [Dispatcher.Work]) {
        guard !work.isEmpty else { return }
        dispatcher.dispatch(work) { [weak self] events in
            guard let self else { return }
            do {
                _ = try await self.recordHere(events)  // results of this node's own sends: never forwarded
            } catch {
                self.logger.error("provider results not recorded", [
                    "deliveries": .string(events.map { String($0.0.rawValue) }.joined(separator: ",")),
                    "events": .string(events.map(\.1.logKind).joined(separator: ",")), "error": .string("\(error)"),
                ])
            }
        }
    }
}
