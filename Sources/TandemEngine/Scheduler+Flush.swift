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

    private struct Started {
        let entry: Entry
        let actions: [DeliveryAction]
        let continuation: CheckedContinuation<DeliveryKey, any Error>
    }

    private struct Changed {
        let key: DeliveryKey
        let actions: [DeliveryAction]
        let continuation: CheckedContinuation<EventOutcome, any Error>?
    }

    private func process(_ batch: [Command]) async {
        let now = clock.now()
        var inserts: [NewDeliveryRecord] = []
        var started: [Started] = []
        var changes: [DeliveryChange] = []
        var changed: [Changed] = []
        var before: [DeliveryKey: Entry] = [:]
        var late: [(DeliveryKey, DeliveryEvent, CheckedContinuation<EventOutcome, any Error>?)] = []

        for command in batch {
            switch command {
            case .start(let new, let continuation):
                var delivery = Delivery(smsValidity: new.smsValidity)
                let event = DeliveryEvent.routed(new.decision)
                let actions = delivery.handle(event, now: now)
                let entry = Entry(delivery: delivery, msisdn: new.msisdn, content: new.content)
                inserts.append(NewDeliveryRecord(msisdn: new.msisdn, content: new.content, delivery: delivery, event: event,
                                                 at: now, effects: Self.persistedEffects(actions)))
                started.append(Started(entry: entry, actions: actions, continuation: continuation))
            case .event(let key, let event, let continuation):
                guard var entry = entries[key] else {
                    late.append((key, event, continuation))
                    continue
                }
                let previous = entry
                let actions = entry.delivery.handle(event, now: now)
                // A timer that fired where it no longer matters changed nothing: not an event worth a write.
                if case .timerFired = event, actions.isEmpty, entry.delivery == previous.delivery {
                    continuation?.resume(returning: .applied)
                    continue
                }
                if before[key] == nil { before[key] = previous }
                entries[key] = entry
                changes.append(DeliveryChange(key: key, delivery: entry.delivery, event: event, at: now,
                                              effects: Self.persistedEffects(actions)))
                changed.append(Changed(key: key, actions: actions, continuation: continuation))
            }
        }

        let keys: [DeliveryKey]
        do {
            keys = inserts.isEmpty && changes.isEmpty ? [] : try await store.commit(inserts: inserts, changes: changes)
        } catch {
            for (key, entry) in before { entries[key] = entry }
            logger.error("delivery commit failed", ["error": .string("\(error)"), "commands": .int(Int64(batch.count))])
            for item in started { item.continuation.resume(throwing: error) }
            for item in changed {
                item.continuation?.resume(throwing: error)
                // A timer event that could not be committed is tried again shortly.
                if case .timerFired = changes.first(where: { $0.key == item.key })?.event { retryTimers(of: item.key, after: now) }
            }
            for (_, _, continuation) in late { continuation?.resume(throwing: error) }
            return
        }

        for (item, key) in zip(started, keys) {
            if !item.entry.delivery.isFinal { entries[key] = item.entry }
            act(item.actions, key: key, entry: item.entry)
            item.continuation.resume(returning: key)
        }
        for item in changed {
            guard let entry = entries[item.key] else { continue }
            if entry.delivery.isFinal { entries[item.key] = nil }
            act(item.actions, key: item.key, entry: entry)
            item.continuation?.resume(returning: .applied)
        }
        for (key, event, continuation) in late {
            do {
                try await store.appendLateEvent(event, to: key, at: now)
                continuation?.resume(returning: .loggedAfterFinal)
            } catch {
                continuation?.resume(throwing: error)
            }
        }
    }

    /// The actions that are database writes, persisted with the snapshot.
    static func persistedEffects(_ actions: [DeliveryAction]) -> PersistedEffects {
        var effects = PersistedEffects()
        for action in actions {
            switch action {
            case .report(let status): effects.reports.append(status)
            case .invalidateRegistration(let device): effects.invalidations.append(device)
            case .sendPush, .terminatePush, .sendSMS, .schedule, .cancel, .record: break
            }
        }
        return effects
    }

    /// After the commit: timers into the wheel, network actions to the dispatcher.
    func act(_ actions: [DeliveryAction], key: DeliveryKey, entry: Entry) {
        for action in actions {
            switch action {
            case .schedule(let kind, let deadline):
                arm(kind, of: key, at: deadline)
            case .cancel(let kind):
                wheel.cancel(Self.timerID(key, kind))
            case .sendPush, .terminatePush, .sendSMS, .invalidateRegistration, .record, .report:
                break
            }
        }
        let context = Dispatcher.Context(key: key, msisdn: entry.msisdn, content: entry.content,
                                         smsValidity: entry.delivery.smsValidity)
        dispatcher.dispatch(actions, context: context) { [weak self] event, key in
            guard let self else { return }
            do {
                try await self.record(event, for: key)
            } catch {
                self.logger.error("provider result not recorded", ["delivery": .int(key.rawValue), "event": .string(event.logKind),
                                                                          "error": .string("\(error)")])
            }
        }
    }
}
