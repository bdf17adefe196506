import TandemCore

extension Scheduler {
    /// One SMS part as providers name it in reports.
    struct SMSPart: Hashable {
        let provider: String
        let reference: String
    }

    /// Applies SMS delivery reports (DLRs) and returns once they are committed, so a provider acknowledges
    /// a report to its SMSC only when it is durable.
    ///
    /// A report is matched by its provider and part id: first among in-flight deliveries, then in the
    /// store (a delivery already final gets the report in its event log only). A report can overtake the
    /// submit it belongs to — an SMSC may send the DLR before the dispatcher has recorded `smsSubmitted` —
    /// so one that matches nothing waits for that submission, up to `smsReportGrace`, and only while some
    /// submission is still unrecorded (otherwise nothing could match it: a report for an id the crash
    /// window lost, or another system's). The matched reports of a batch are committed first, without
    /// waiting; the unmatched ones wait together, then are committed or dropped with a warning.
    /// Not guaranteed: that a report for an id the provider reused reaches the older delivery.
    public func recordSMSReports(_ reports: [SMSDeliveryReport]) async throws {
        var matched: [(DeliveryKey, DeliveryEvent)] = []
        var unmatched: [SMSDeliveryReport] = []
        for report in reports {
            let part = SMSPart(provider: report.provider, reference: report.reference)
            var key = smsParts[part]
            if key == nil {
                key = try await store.deliveryKey(smsProvider: report.provider, reference: report.reference)
                // The store read suspended this actor: the submission may have been indexed meanwhile.
                if key == nil { key = smsParts[part] }
            }
            if let key {
                matched.append((key, .smsPartReported(reference: report.reference, report.outcome)))
            } else {
                unmatched.append(report)
            }
        }
        if !matched.isEmpty { _ = try await record(matched) }
        guard !unmatched.isEmpty else { return }

        let deadline = clock.now() + smsReportGrace
        let keys = await withTaskGroup(of: (Int, DeliveryKey?).self) { group in
            for (index, report) in unmatched.enumerated() {
                let part = SMSPart(provider: report.provider, reference: report.reference)
                group.addTask { (index, await self.awaitSubmission(of: part, until: deadline)) }
            }
            var keys = [DeliveryKey?](repeating: nil, count: unmatched.count)
            for await (index, key) in group { keys[index] = key }
            return keys
        }
        let found = ownership == nil ? keys : await lookUpElsewhere(unmatched, keys, until: deadline)
        var late: [(DeliveryKey, DeliveryEvent)] = []
        for (report, key) in zip(unmatched, found) {
            guard let key else {
                logger.warning("SMS report matches no delivery", ["provider": .string(report.provider),
                                                                  "reference": .string(report.reference),
                                                                  "outcome": .string(report.outcome.rawValue)])
                continue
            }
            late.append((key, .smsPartReported(reference: report.reference, report.outcome)))
        }
        if !late.isEmpty { _ = try await record(late) }
    }

    /// On a cluster node, reports still unmatched may belong to another node's submission, not committed yet when
    /// they arrived on this node's bind: the store is read again every quarter second until `deadline` (the same grace
    /// as for a local submission) for those not found yet.
    private func lookUpElsewhere(_ reports: [SMSDeliveryReport], _ keys: [DeliveryKey?], until deadline: Timestamp) async -> [DeliveryKey?] {
        var keys = keys
        while keys.contains(nil), clock.now() < deadline {
            try? await clock.sleep(until: min(deadline, clock.now() + .milliseconds(250)))
            for index in keys.indices where keys[index] == nil {
                keys[index] = try? await store.deliveryKey(smsProvider: reports[index].provider, reference: reports[index].reference)
            }
        }
        return keys
    }

    /// The delivery `part` belongs to once a committed `smsSubmitted` indexes it; nil at `deadline`, or at
    /// once (or as soon as it becomes true) when no submission is left unrecorded. The index check and the
    /// registration happen in one actor turn, so an indexing in between cannot be missed.
    private func awaitSubmission(of part: SMSPart, until deadline: Timestamp) async -> DeliveryKey? {
        if let key = smsParts[part] { return key }
        guard !smsSubmitsOutstanding.isEmpty else { return nil }
        let clock = self.clock
        return await withCheckedContinuation { (continuation: CheckedContinuation<DeliveryKey?, Never>) in
            smsWaiters[part, default: []].append(continuation)
            Task { [weak self] in
                try? await clock.sleep(until: deadline)
                await self?.giveUpWaiting(for: part)
            }
        }
    }

    private func giveUpWaiting(for part: SMSPart) {
        guard let waiters = smsWaiters.removeValue(forKey: part) else { return }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// Tracks the deliveries whose SMS submission is not recorded yet (after a commit, or at recovery);
    /// when none is left, reports still waiting cannot match anything any more and stop waiting.
    func trackSMSSubmission(of entry: Entry) {
        trackSMSSubmission(of: entry.key, entry.delivery)
    }

    func trackSMSSubmission(of key: DeliveryKey, _ delivery: Delivery) {
        if delivery.state == .awaitingSMSSubmit {
            smsSubmitsOutstanding.insert(key)
        } else if smsSubmitsOutstanding.remove(key) != nil, smsSubmitsOutstanding.isEmpty, !smsWaiters.isEmpty {
            let waiting = smsWaiters
            smsWaiters.removeAll()
            for waiter in waiting.values.joined() { waiter.resume(returning: nil) }
        }
    }

    /// Keeps the part index in step with a delivery after its change committed: parts of a new submission
    /// are added (waking reports that were waiting for them); a final delivery's parts are removed.
    func indexSMSParts(of entry: Entry, final: Bool) {
        indexSMSParts(of: entry.key, entry.delivery, final: final)
    }

    func indexSMSParts(of key: DeliveryKey, _ delivery: Delivery, final: Bool) {
        guard let sms = delivery.sms else { return }
        for reference in sms.references {
            let part = SMSPart(provider: sms.provider, reference: reference)
            if final {
                smsParts[part] = nil
            } else {
                smsParts[part] = key
            }
            if let waiters = smsWaiters.removeValue(forKey: part) {
                for waiter in waiters { waiter.resume(returning: key) }
            }
        }
    }
}

extension Scheduler {
    /// Reports waiting for the submission they overtook (for tests and metrics).
    public var waitingSMSReports: Int { smsWaiters.values.reduce(0) { $0 + $1.count } }
}
