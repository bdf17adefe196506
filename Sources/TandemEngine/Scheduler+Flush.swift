import TandemCore

extension Scheduler {
    /// Commits queued and not yet answered, at most: one being written while the next is prepared and
    /// waits in the writer's queue, so the writer never idles for a round trip through the scheduler.
    static let commitsInFlight = 2

    /// One command's share of a batch, answered once the batch committed.
    enum Reply {
        case keys(CheckedContinuation<[DeliveryKey], any Error>, range: Range<Int>)
        case outcomes(CheckedContinuation<[EventOutcome], any Error>?, [EventOutcome])
        /// A receipt applied to its delivery in flight; `late`: one of its events came after the delivery became final.
        case receipt(ReceiptCompletion, late: Bool)
    }

    /// A batch applied to the deliveries in memory, its commit queued; acted on once that commit succeeded.
    struct PreparedBatch {
        let commands: Int
        /// Deliveries started plus events applied, counted as `queuedUnits` counts them.
        let units: Int
        let now: Timestamp
        let commit: PendingCommit
        let started: [(new: NewDelivery, delivery: Delivery, actions: [DeliveryAction])]
        var changed: [AppliedEvent]
        /// The changes committed, in order (each ``AppliedEvent/change`` indexes it): kept until the batch is acted
        /// on, so that an applied event does not carry a copy of the delivery of its own.
        var changes: [DeliveryChange]
        /// The delivery before each event of `changed` (same order), restored newest first if the commit fails.
        var previous: [Delivery]
        /// The actions of every event in `changed`, one after another (each ``AppliedEvent/actions`` is a range of it).
        var actions: [DeliveryAction]
        let late: [(DeliveryKey, DeliveryEvent)]
        var replies: [Reply]
    }

    /// Emptied buffers kept for reuse, with their capacity: the queue and the inbox's commands (traded as they
    /// are taken), a batch's changes, previous deliveries, applied events, actions and replies (once acted on).
    /// Under load each is kilobytes to tens of kilobytes — allocated per batch, they took malloc's slowest
    /// paths (with the store's commit buffers, ~6% of the server's CPU samples under the receipts benchmark). A few
    /// of each are kept (a batch is prepared before the one before it has given its buffers back); buffers beyond
    /// ``spareLimit`` elements are let go.
    struct SpareBuffers {
        var queue: [[Command]] = []
        var inbox: [[Command]] = []
        var changes: [[DeliveryChange]] = []
        var changed: [[AppliedEvent]] = []
        var previous: [[Delivery]] = []
        var actions: [[DeliveryAction]] = []
        var replies: [[Reply]] = []
    }

    static let spareLimit = 4_096
    static let sparesKept = commitsInFlight + 1

    /// A spare buffer from the pool at `path` (or a new one), empty, now the caller's alone.
    func takeSpare<Element>(_ path: WritableKeyPath<SpareBuffers, [[Element]]>) -> [Element] {
        spares[keyPath: path].popLast() ?? []
    }

    /// Empties `buffer` and keeps it (its capacity) in the pool at `path`, leaving `buffer` empty.
    func keepSpare<Element>(_ buffer: inout [Element], _ path: WritableKeyPath<SpareBuffers, [[Element]]>) {
        guard buffer.capacity <= Self.spareLimit, spares[keyPath: path].count < Self.sparesKept else { return }
        buffer.removeAll(keepingCapacity: true)
        var kept: [Element] = []
        swap(&kept, &buffer)
        spares[keyPath: path].append(kept)
    }

    /// An event that changed an in-flight delivery: its table entry, and where the batch holds the delivery just
    /// after it (``PreparedBatch/changes``: what acting on the event sees, though a later batch may have moved the
    /// delivery on in the table since), the delivery just before it (``PreparedBatch/previous``) and its actions.
    /// An event after the one that made a delivery final is late, so a final delivery is its last event of the batch.
    /// A few words: no copy of a delivery of its own (copying and releasing those was ~10% of this thread).
    struct AppliedEvent {
        let key: DeliveryKey
        /// The table's entry (its recipient and content never change).
        let inFlight: InFlight
        /// Its index in ``PreparedBatch/changes`` and ``PreparedBatch/previous``.
        let change: Int
        /// Where its actions are in the batch's ``PreparedBatch/actions`` (one buffer for the batch: an array per
        /// event was an allocation per receipt, freed on another thread — glibc's slow path, ~7% of this thread).
        let actions: Range<Int>
        let isTimer: Bool
    }

    /// Takes the queued commands as one batch, applies it and queues its commit — unless
    /// ``commitsInFlight`` commits are queued already, or the waiting commands amount to less than the latest
    /// batch in flight: then they wait, and more join them. (Preparing at once behind a batch in flight
    /// alternated tiny and large batches under load — more commits for the same work, measured 4–9% more
    /// server CPU per receipt; with nothing in flight they go at once.)
    func prepareQueued() {
        guard !queue.isEmpty, prepared.count < Self.commitsInFlight else { return }
        if let latest = prepared.last, queuedUnits < latest.units { return }
        var batch = takeSpare(\.queue)
        swap(&batch, &queue)
        queuedUnits = 0
        prepared.append(prepare(batch))
        keepSpare(&batch, \.queue)
        guard !finishing else { return }
        finishing = true
        inbox.watch()  // wakes the parked pipeline; the loop takes submitted receipts in until it stops
        if !pipelineStarted { startPipeline() }
    }

    /// Starts the pipeline task: the finish loop while there is work, parked in the inbox in between. It holds the
    /// scheduler only while the loop runs, and ends once the scheduler is gone (its `deinit` stops the inbox).
    private func startPipeline() {
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

    private func prepare(_ batch: [Command]) -> PreparedBatch {
        let now = clock.now()
        var inserts: [NewDeliveryRecord] = []
        var started: [(new: NewDelivery, delivery: Delivery, actions: [DeliveryAction])] = []
        var changes = takeSpare(\.changes)
        var changed = takeSpare(\.changed)
        var previous = takeSpare(\.previous)
        var actions = takeSpare(\.actions)
        var late: [(DeliveryKey, DeliveryEvent)] = []
        var replies = takeSpare(\.replies)
        var requests: [AcceptedRequest] = []
        var acknowledgements: [BWMIAcknowledgementWrite] = []
        // Sized up front: a bulk batch holds thousands, and growing these copies every element several times.
        var (startCount, eventCount, units) = (0, 0, 0)
        for command in batch {
            units += command.units
            switch command {
            case .start(let news, _, _): startCount += news.count
            case .events(let events, _): eventCount += events.count
            case .receipt(_, let events, _, _, _): eventCount += events.count
            }
        }
        inserts.reserveCapacity(startCount)
        started.reserveCapacity(startCount)
        replies.reserveCapacity(batch.count)
        changes.reserveCapacity(eventCount)
        changed.reserveCapacity(eventCount)
        previous.reserveCapacity(eventCount)

        // On a cluster node: the partitions this batch touches, at the epochs they were loaded under (its fence), and
        // those new deliveries may start in.
        var fence: [Int: Int64] = [:]
        var startable: [LeaseRef]?
        for command in batch {
            if ownership != nil, let partition = unheldPartition(of: command, fence: &fence) {
                reject(command, partition: partition, now: now)
                continue
            }
            switch command {
            case .start(let news, let request, let continuation):
                var partitions: [LeaseRef] = []
                if ownership != nil, !news.isEmpty {
                    partitions = startable ?? startablePartitions()
                    startable = partitions
                    guard !partitions.isEmpty else {
                        continuation.resume(throwing: NoPartitionHeld())
                        continue
                    }
                }
                if !request.isEmpty { requests.append(request) }
                let first = started.count
                for new in news {
                    var delivery = Delivery(smsValidity: new.smsValidity, smsReportWait: smsReportWait)
                    let event = new.start
                    let actions = delivery.handle(event, now: now)
                    var partition: Int?
                    if !partitions.isEmpty {
                        let lease = partitions[nextPartition % partitions.count]
                        nextPartition &+= 1
                        fence[lease.partition] = lease.epoch
                        partition = lease.partition
                    }
                    inserts.append(NewDeliveryRecord(recipient: new.recipient, content: new.content, delivery: delivery, event: event,
                                                     at: now, effects: PersistedEffects(actions: actions), partition: partition))
                    started.append((new, delivery, actions))
                }
                replies.append(.keys(continuation, range: first..<started.count))
            case .events(let events, let continuation):
                var outcomes: [EventOutcome] = []
                outcomes.reserveCapacity(events.count)
                for (key, event) in events {
                    outcomes.append(apply(event, to: key, entries[key], now: now, changes: &changes, changed: &changed,
                                          previous: &previous, actions: &actions, late: &late))
                }
                replies.append(.outcomes(continuation, outcomes))
            case .receipt(let key, let events, let sender, let acknowledgement, let completion):
                // Answered at once when nothing of it will be stored.
                guard let inFlight = entries[key], !inFlight.entry.delivery.isFinal else {
                    completion(.success(.notInFlight))
                    continue
                }
                guard inFlight.entry.content.app == sender.app, inFlight.entry.recipient == sender.recipient else {
                    completion(.success(.notTheRecipient))
                    continue
                }
                var hasLate = false
                for event in events {
                    hasLate = apply(event, to: key, inFlight, now: now, changes: &changes, changed: &changed, previous: &previous,
                                    actions: &actions, late: &late) == .loggedAfterFinal || hasLate
                }
                if let acknowledgement { acknowledgements.append(acknowledgement) }
                replies.append(.receipt(completion, late: hasLate))
            }
        }
        let commitFence = ownership.map { ownership in
            CommitFence(node: ownership.node, leases: fence.map { LeaseRef(partition: $0.key, epoch: $0.value) })
        }
        let commit = store.queueCommit(requests: requests, inserts: inserts, changes: changes, acknowledgements: acknowledgements,
                                       fence: commitFence, chain: chain)
        return PreparedBatch(commands: batch.count, units: units, now: now, commit: commit, started: started, changed: changed,
                             changes: changes, previous: previous, actions: actions, late: late, replies: replies)
    }

    /// Applies `event` to its delivery in memory (`inFlight`, the table's entry for `key`, looked up by the
    /// caller), collecting what to store and what to act on once stored. An event for a delivery not in the
    /// table — or final in a batch whose commit is still in flight, as good as gone — is late: only logged.
    private func apply(_ event: DeliveryEvent, to key: DeliveryKey, _ inFlight: InFlight?, now: Timestamp,
                       changes: inout [DeliveryChange], changed: inout [AppliedEvent], previous: inout [Delivery],
                       actions: inout [DeliveryAction], late: inout [(DeliveryKey, DeliveryEvent)]) -> EventOutcome {
        guard let inFlight, !inFlight.entry.delivery.isFinal else {
            late.append((key, event))
            return .loggedAfterFinal
        }
        let before = inFlight.entry.delivery
        let first = actions.count
        inFlight.entry.delivery.handle(event, now: now, into: &actions)
        let range = first..<actions.count
        // A timer that fired where it no longer matters changed nothing: not an event worth a write.
        if case .timerFired = event, range.isEmpty, inFlight.entry.delivery == before { return .applied }
        var isTimer = false
        if case .timerFired = event { isTimer = true }
        changed.append(AppliedEvent(key: key, inFlight: inFlight, change: changes.count, actions: range, isTimer: isTimer))
        changes.append(DeliveryChange(key: key, delivery: inFlight.entry.delivery, event: event, at: now,
                                      effects: PersistedEffects(actions: actions[range])))
        previous.append(before)
        return .applied
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

    /// After the commit, for one applied event: `delivery` is the delivery just after it (borrowed from the batch; an
    /// `Entry` is made only for network actions).
    /// Counts an applied (committed) event that the metrics name: an app's receipt, an SMS part's delivery report.
    private func count(_ event: DeliveryEvent) {
        switch event {
        case .deliveryAcknowledged: metrics.receipt(.delivered)
        case .readReported: metrics.receipt(.read)
        case .smsPartReported(_, let outcome): metrics.reported(outcome)
        default: break
        }
    }

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
