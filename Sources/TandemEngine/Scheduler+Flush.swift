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
}
