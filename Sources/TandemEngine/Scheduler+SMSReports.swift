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
    /// so one that matches nothing waits up to `smsReportGrace` for that submission, then is dropped with
    /// a warning. Not guaranteed: that a report for an id the provider reused reaches the older delivery.
    public func recordSMSReports(_ reports: [SMSDeliveryReport]) async throws {
        var events: [(DeliveryKey, DeliveryEvent)] = []
        for report in reports {
            let part = SMSPart(provider: report.provider, reference: report.reference)
            var key = smsParts[part]
            if key == nil { key = try await store.deliveryKey(smsProvider: report.provider, reference: report.reference) }
            if key == nil { key = await awaitSubmission(of: part) }
            guard let key else {
                logger.warning("SMS report matches no delivery", ["provider": .string(report.provider),
                                                                  "reference": .string(report.reference),
                                                                  "outcome": .string(report.outcome.rawValue)])
                continue
            }
            events.append((key, .smsPartReported(reference: report.reference, report.outcome)))
        }
        _ = try await record(events)
    }

    /// Waits until `part` is indexed by a committed `smsSubmitted`, or `smsReportGrace` passes (nil).
    private func awaitSubmission(of part: SMSPart) async -> DeliveryKey? {
        let deadline = clock.now() + smsReportGrace
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

    /// Keeps the part index in step with a delivery after its change committed: parts of a new submission
    /// are added (waking reports that were waiting for them); a final delivery's parts are removed.
    func indexSMSParts(of entry: Entry, final: Bool) {
        guard let sms = entry.delivery.sms else { return }
        for reference in sms.references {
            let part = SMSPart(provider: sms.provider, reference: reference)
            if final {
                smsParts[part] = nil
            } else {
                smsParts[part] = entry.key
            }
            if let waiters = smsWaiters.removeValue(forKey: part) {
                for waiter in waiters { waiter.resume(returning: entry.key) }
            }
        }
    }
}

extension Scheduler {
    /// Reports waiting for the submission they overtook (for tests and metrics).
    public var waitingSMSReports: Int { smsWaiters.values.reduce(0) { $0 + $1.count } }
}
