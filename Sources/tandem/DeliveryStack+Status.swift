import TandemAPI
import TandemCore

extension DeliveryStack {
    /// The figures of `GET /admin/status`: deliveries and timers the scheduler holds, the spool's queue and
    /// the SMPP binds, each read on its own.
    func status(uptimeSeconds: Double) async -> AdminStatusEndpoint.Snapshot {
        let scheduler = scheduler
        let inFlight = await scheduler.inFlightCount
        let timers = await scheduler.pendingTimerCount
        let queued = try? await store.queuedSpoolRecipients()
        return AdminStatusEndpoint.Snapshot(uptimeSeconds: uptimeSeconds, providers: configurationSummary,
                                            deliveriesInFlight: inFlight, timersPending: timers,
                                            spoolRecipientsQueued: queued,
                                            smpp: providers.smppBinds)
    }
}
