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
    /// `loadedThrough + 1 ... horizon` (keys of deliveries created later are greater than `horizon`).
    struct RecoveryProgress {
        let horizon: DeliveryKey
        var loadedThrough: DeliveryKey?

        func isPending(_ key: DeliveryKey) -> Bool {
            key <= horizon && loadedThrough.map { key > $0 } ?? true
        }
    }

    /// Rebuilds every in-flight delivery and the wheel from the store before returning (``beginRecovery()``, then
    /// ``loadRecovered(pageSize:)``). A server uses the two steps to serve while the deliveries load.
    @discardableResult
    public func recover(pageSize: Int = 20_000) async throws -> RecoveryReport {
        try await beginRecovery()
        return try await loadRecovered(pageSize: pageSize)
    }

    /// Notes which stored deliveries are in flight (their greatest key), so that commands for them wait until
    /// they are loaded. Quick (one indexed read); call before serving, then ``loadRecovered(pageSize:)`` — the
    /// scheduler accepts new deliveries and runs its timers meanwhile.
    public func beginRecovery() async throws {
        _ = wheel.advance(to: tick(containing: clock.now()))  // the wheel is empty: this only moves its clock
        guard let horizon = try await store.inFlightHorizon() else { return }
        recovery = RecoveryProgress(horizon: horizon, loadedThrough: nil)
    }

    /// Loads the deliveries ``beginRecovery()`` found, page by page in key order, each page read (and decoded) off
    /// the actor while the previous one is installed. Installing a delivery re-arms its stored deadlines (one
    /// already passed fires at once: never early), and asks again for work that was asked for but whose result
    /// was never stored: an SMS in `awaitingSMSSubmit` is submitted again, and a push is re-sent to the devices
    /// with neither a verdict nor a receipt (the one window for duplicates: a crash after the provider accepted
    /// and before Tandem stored it). Commands held for a page's deliveries then run, in arrival order, before
    /// any later command for them.
    ///
    /// A page that cannot be read is tried again (with a pause that grows to 5 s): the held commands wait, none
    /// is dropped. Not guaranteed: how long a command for a delivery in a late page waits (the load's duration).
    @discardableResult
    public func loadRecovered(pageSize: Int = 20_000) async throws -> RecoveryReport {
        let store = self.store
        var report = RecoveryReport()
        guard let horizon = recovery?.horizon else { return report }
        var next: Task<[StoredDelivery], any Error>? = Task { try await store.loadInFlight(after: nil, limit: pageSize) }
        var pause = Duration.milliseconds(100)
        while let reading = next {
            let page: [StoredDelivery]
            do {
                page = try await reading.value
            } catch {
                logger.error("recovery: reading in-flight deliveries failed; trying again", ["error": .string("\(error)")])
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
                let after = recovery?.loadedThrough
                next = Task { try await store.loadInFlight(after: after, limit: pageSize) }
                continue
            }
            pause = .milliseconds(100)
            let last = page.last?.key
            let done = page.count < pageSize || (last.map { $0 >= horizon } ?? true)
            // The next page is read while this one is installed.
            next = done ? nil : Task { try await store.loadInFlight(after: last, limit: pageSize) }
            install(page.lazy.filter { $0.key <= horizon }, throughKey: done ? horizon : (last ?? horizon), into: &report)
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
        return Int(recovery.horizon.rawValue - (recovery.loadedThrough?.rawValue ?? 0))
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
        case .receipt(let key, _, _, _): return recovery.isPending(key) ? key : nil
        }
    }

    /// Puts one page's deliveries in the table and the wheel, then releases what waited for keys up to `throughKey`.
    private func install(_ page: some Sequence<StoredDelivery>, throughKey: DeliveryKey, into report: inout RecoveryReport) {
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
        release(through: throughKey, into: &report)
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
