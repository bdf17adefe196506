import TandemCore

extension Scheduler {
    /// What `recover()` found and restarted.
    public struct RecoveryReport: Sendable, Hashable {
        public var deliveries = 0
        public var timersArmed = 0
        /// Timers whose deadline passed while the process was down: fired at once.
        public var timersOverdue = 0
        /// Pushes sent again because no verdict had been stored for them.
        public var pushesResent = 0
        /// SMS submitted again because no `submit_sm_resp` had been stored for them.
        public var smsResent = 0
    }

    /// Rebuilds in-flight deliveries and the wheel from the store, at start-up before any command.
    ///
    /// Every stored deadline is re-armed; one already passed fires at once. Work that was asked for but
    /// whose result was never stored is asked for again: an SMS in `awaitingSMSSubmit` is submitted again,
    /// and a push is re-sent to the devices that have neither a verdict nor a receipt. That is the one
    /// window for duplicates: a crash after the provider accepted and before Tandem stored it.
    @discardableResult
    public func recover() async throws -> RecoveryReport {
        let stored = try await store.loadInFlight()
        var report = RecoveryReport()
        let now = clock.now()
        _ = wheel.advance(to: tick(containing: now))  // the wheel is empty: this only moves its clock
        var work: [Dispatcher.Work] = []
        for item in stored {
            let entry = item
            entries[item.key] = InFlight(entry)
            indexSMSParts(of: entry, final: false)
            trackSMSSubmission(of: entry)
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
            act(resume[...], key: item.key, entry: entry, into: &work)
        }
        dispatch(work)
        logger.info("scheduler recovered", ["deliveries": .int(Int64(report.deliveries)), "timersOverdue": .int(Int64(report.timersOverdue)),
                                            "pushesResent": .int(Int64(report.pushesResent)), "smsResent": .int(Int64(report.smsResent))])
        return report
    }
}
