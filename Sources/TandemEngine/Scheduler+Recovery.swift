import TandemCore

extension Scheduler {
    /// What recovery found and restarted.
    public struct RecoveryReport: Sendable, Hashable {
        public var deliveries = 0
        public var timersArmed = 0
        /// Timers whose deadline passed while the process was down: fired at once.
        public var timersOverdue = 0
        /// Pushes sent again because no verdict had been stored for them.
        public var pushesResent = 0
        /// SMS submitted again because no `submit_sm_resp` had been stored for them.
        public var smsResent = 0
        /// Commands (receipts, reports, fallback requests) that arrived for a delivery not loaded yet and waited for it.
        public var commandsHeld = 0
    }

    /// Deliveries stored in flight when recovery began and not loaded yet: the keys in
    /// `max(first, loadedThrough + 1) ... horizon` (keys of deliveries created later are greater than `horizon`).
    struct RecoveryProgress {
        let first: DeliveryKey
        let horizon: DeliveryKey
        var loadedThrough: DeliveryKey?

        func isPending(_ key: DeliveryKey) -> Bool {
            key >= first && key <= horizon && loadedThrough.map { key > $0 } ?? true
        }
    }

    /// Rebuilds every in-flight delivery and the wheel from the store before returning (``beginRecovery()``, then
    /// ``loadRecovered(pageKeys:readsInFlight:)``). A server uses the two steps to serve while the deliveries load.
    @discardableResult
    public func recover(pageKeys: Int64 = 10_000) async throws -> RecoveryReport {
        try await beginRecovery()
        return try await loadRecovered(pageKeys: pageKeys)
    }

    /// Notes which stored deliveries are in flight (their range of keys), so that commands for them wait until they
    /// are loaded. Quick (one indexed read); call before serving, then ``loadRecovered(pageKeys:readsInFlight:)`` —
    /// the scheduler accepts new deliveries and runs its timers meanwhile.
    public func beginRecovery() async throws {
        _ = wheel.advance(to: tick(containing: clock.now()))  // the wheel is empty: this only moves its clock
        guard let keys = try await store.inFlightKeys() else { return }
        recovery = RecoveryProgress(first: keys.lowerBound, horizon: keys.upperBound, loadedThrough: nil)
    }

    /// Loads the deliveries ``beginRecovery()`` found, in pages of `pageKeys` consecutive keys, in key order:
    /// `readsInFlight` pages are read (and decoded, by the store, off the cooperative pool) at once while the ones
    /// before them are installed. Installing a delivery re-arms its stored deadlines (one already passed fires at once:
    /// never early), and asks again for work that was asked for but whose result was never stored: an SMS in
    /// `awaitingSMSSubmit` is submitted again, and a push is re-sent to the devices with neither a verdict nor a
    /// receipt (the one window for duplicates: a crash after the provider accepted and before Tandem stored it).
    /// Commands held for a page's deliveries then run, in arrival order, before any later command for them.
    ///
    /// A page that cannot be read is read again (after a pause that grows to 5 s): the held commands wait, none is
    /// dropped. Not guaranteed: how long a command for a delivery in a late page waits (up to the load's duration).
    @discardableResult
    public func loadRecovered(pageKeys: Int64 = 10_000, readsInFlight: Int = 2) async throws -> RecoveryReport {
        let store = self.store
        var report = RecoveryReport()
        guard let progress = recovery else { return report }
        let pageKeys = max(1, pageKeys)
        var nextFirst = progress.first.rawValue
        var reading: [(keys: ClosedRange<DeliveryKey>, task: Task<[StoredDelivery], any Error>)] = []
        func read(_ keys: ClosedRange<DeliveryKey>) -> Task<[StoredDelivery], any Error> {
            Task { try await store.loadInFlight(in: keys) }
        }
        var pause = Duration.milliseconds(100)
        while true {
            while reading.count < max(1, readsInFlight), nextFirst <= progress.horizon.rawValue {
                let last = min(progress.horizon.rawValue, nextFirst + pageKeys - 1)
                let keys = DeliveryKey(nextFirst)...DeliveryKey(last)
                reading.append((keys, read(keys)))
                nextFirst = last + 1
            }
            guard let (keys, task) = reading.first else { break }
            let page: [StoredDelivery]
            do {
                page = try await task.value
            } catch {
                logger.error("recovery: reading in-flight deliveries failed; trying again", ["error": .string("\(error)")])
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
                reading[0].task = read(keys)
                continue
            }
            pause = .milliseconds(100)
            reading.removeFirst()
            install(page, throughKey: keys.upperBound, into: &report)
        }
        logger.info("scheduler recovered", ["deliveries": .int(Int64(report.deliveries)), "timersOverdue": .int(Int64(report.timersOverdue)),
                                            "pushesResent": .int(Int64(report.pushesResent)), "smsResent": .int(Int64(report.smsResent)),
                                            "commandsHeld": .int(Int64(report.commandsHeld))])
        return report
    }

    /// Whether recovery still has deliveries to load.
    public var isRecovering: Bool { recovery != nil }

    /// Deliveries found in flight at start-up that are not loaded yet (an upper bound: keys, not rows).
    public var deliveriesAwaitingRecovery: Int {
        guard let recovery else { return 0 }
        return Int(recovery.horizon.rawValue - (recovery.loadedThrough?.rawValue ?? recovery.first.rawValue - 1))
    }

    /// Waits until the delivery with `key` is loaded, if recovery has not reached it yet.
    func waitUntilLoaded(_ key: DeliveryKey) async {
        guard let recovery, recovery.isPending(key) else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loadWaiters.append((key, continuation))
        }
    }

    /// The greatest key `command` names that recovery has not loaded yet; nil when it names none.
    func pendingKey(of command: Command) -> DeliveryKey? {
        guard let recovery else { return nil }
        switch command {
        case .start: return nil
        case .events(let events, _): return events.lazy.map(\.0).filter(recovery.isPending).max()
        case .receipt(let key, _, _, _, _): return recovery.isPending(key) ? key : nil
        }
    }

    /// Puts one page's deliveries in the table and the wheel, then releases what waited for keys up to `throughKey`.
    private func install(_ page: [StoredDelivery], throughKey: DeliveryKey, into report: inout RecoveryReport) {
        install(page, into: &report)
        release(through: throughKey, into: &report)
    }

    /// Puts stored in-flight deliveries in the table and the wheel: their stored deadlines re-armed (one already
    /// passed fires at once), work asked for but never recorded asked for again.
    func install(_ page: [StoredDelivery], into report: inout RecoveryReport) {
        let now = clock.now()
        var work: [Dispatcher.Work] = []
        for item in page {
            entries[item.key] = InFlight(item)
            indexSMSParts(of: item, final: false)
            trackSMSSubmission(of: item)
            report.deliveries += 1
            for (kind, deadline) in item.delivery.timers {
                if deadline <= now { report.timersOverdue += 1 } else { report.timersArmed += 1 }
                arm(kind, of: item.key, at: deadline)
            }
            var resume: [DeliveryAction] = []
            switch item.delivery.state {
            case .awaitingSMSSubmit:
                resume.append(.sendSMS)
                report.smsResent += 1
            case .pushing:
                if let plan = item.delivery.plan {
                    let unsettled = plan.targets.filter { target in
                        let progress = item.delivery.devices[target.deviceID]
                        return progress.map { !$0.accepted && $0.rejection == nil && !$0.acknowledged && !$0.read } ?? false
                    }
                    if !unsettled.isEmpty {
                        resume.append(.sendPush(unsettled, plan.policy))
                        report.pushesResent += 1
                    }
                }
            case .awaitingRoute, .awaitingSMSReport, .final:
                break
            }
            act(resume[...], key: item.key, entry: item, into: &work)
        }
        dispatch(work)
        updateGauges()
    }

    /// Marks keys up to `key` loaded; held commands naming no key still pending join the queue in arrival order,
    /// and waiters for loaded keys resume. Ends recovery at its horizon.
    private func release(through key: DeliveryKey, into report: inout RecoveryReport) {
        guard var progress = recovery else { return }
        progress.loadedThrough = key
        recovery = key >= progress.horizon ? nil : progress
        if !held.isEmpty {
            // Each is held again by `add` if it still names a pending key; the rest queue in arrival order.
            let waiting = held
            held = []
            for (_, command) in waiting { add(command) }
            let released = waiting.count - held.count
            report.commandsHeld += released
            if released > 0 { prepareQueued() }
        }
        if !loadWaiters.isEmpty {
            var waiting: [(DeliveryKey, CheckedContinuation<Void, Never>)] = []
            for (pending, continuation) in loadWaiters {
                if recovery?.isPending(pending) == true {
                    waiting.append((pending, continuation))
                } else {
                    continuation.resume()
                }
            }
            loadWaiters = waiting
        }
    }
}
