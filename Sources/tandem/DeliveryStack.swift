import Foundation
import Synchronization
import TandemAPI
import TandemCore
import TandemCrypto
import TandemEngine
import TandemHTTP
import TandemProviders

/// Everything behind the HTTP routes that moves messages: scheduler, dispatcher, providers, status-report
/// relay and the gateway service, built from the configuration and started and stopped as one.
final class DeliveryStack: Sendable {
    let scheduler: Scheduler
    let dispatcher: Dispatcher
    let gateway: CMGatewayService
    let scg: SCGMessagingService
    /// The one acceptance path every sender API adapts to.
    let intake: MessageIntake
    let deviceAPI: DeviceAPIService
    let bwmi: BWMIService
    /// cospace's per-user token registry and push events.
    let cospace: CospaceEndpoint
    let mymsp: MyMSPService
    let relay: OutboxRelay
    let drainer: SpoolDrainer
    let store: any TandemDatabase
    let providers: ProviderStack
    private let configuration: Configuration
    /// Which provider serves each channel (`push=simulator sms=smpp voice=simulator`).
    var configurationSummary: String { configuration.providers.summary }
    private let logger: Logger
    private let tasks = TaskBag()
    /// On a cluster node, its lease membership (docs/cluster.md); nil on a single server.
    let membership: ClusterMembership?
    /// On a cluster node, told which partitions' shared work (status reports, spools) this node does after each
    /// reconciliation.
    private let workPartitions: (@Sendable ([Int]?) -> Void)?

    init(configuration: Configuration, policies: PolicySet, store: any TandemDatabase, providers: ProviderStack,
         webhookPoster: any WebhookPoster, pinKey: [UInt8], metrics: MetricsRegistry, deliveryMetrics: DeliveryMetrics,
         logger: Logger, membership: ClusterMembership? = nil, workPartitions: (@Sendable ([Int]?) -> Void)? = nil) {
        self.configuration = configuration
        self.membership = membership
        self.workPartitions = workPartitions
        self.store = store
        self.logger = logger
        let clock = SystemClock()
        dispatcher = Dispatcher(push: providers.push, sms: providers.sms, metrics: deliveryMetrics)
        let scheduler = Scheduler(store: store.deliveries, dispatcher: dispatcher, clock: clock,
                                  configuration: Scheduler.Configuration(tick: configuration.scheduler.tick,
                                                                         expectedTimers: configuration.scheduler.expectedTimers,
                                                                         smsReportWait: configuration.scheduler.smsReportWait),
                                  logger: logger.with(["component": "scheduler"]), metrics: deliveryMetrics,
                                  ownership: membership)
        self.scheduler = scheduler
        self.providers = providers
        providers.connect(to: scheduler)
        let now: @Sendable () -> Timestamp = { clock.now() }
        let authenticator = ProductTokenAuthenticator(directory: store, now: now)
        let settings = configuration.gateway
        let drainer = SpoolDrainer(spool: store, directory: store, scheduler: scheduler, policies: policies, now: now,
                                   configuration: SpoolDrainer.Configuration(
                                       chunk: settings.spoolChunk, maxInFlight: settings.spoolMaxInFlight,
                                       defaultSMSValidity: settings.defaultSMSValidity,
                                       // Another node may commit a spool in a partition this one drains.
                                       idleRecheck: membership == nil ? nil : .milliseconds(500)),
                                   logger: logger.with(["component": "spool"]))
        self.drainer = drainer
        intake = MessageIntake(directory: store, addresses: store, keys: store, payloads: providers.payloadMeasure, ledger: store, scheduler: scheduler, drainer: drainer, policies: policies,
                               now: now,
                               messageID: { now in
                                   var generator = SecureRandom.Generator()  // libcrypto's DRBG: no system call per draw
                                   return GUID.timeOrdered(unixMilliseconds: now.milliseconds, using: &generator)
                               },
                               configuration: MessageIntake.Configuration(
                                   defaultSMSValidity: settings.defaultSMSValidity,
                                   spoolThreshold: settings.spoolRecipients > 0 ? settings.spoolRecipients : nil),
                               logger: logger.with(["component": "intake"]), metrics: deliveryMetrics)
        gateway = CMGatewayService(intake: intake, ledger: store, authenticator: authenticator,
                                   logger: logger.with(["component": "gateway"]))
        scg = SCGMessagingService(intake: intake, messages: store, authenticator: SCGTokenAuthenticator(tokens: store, now: now),
                                  scheduler: scheduler, logger: logger.with(["component": "scg"]))
        cospace = CospaceEndpoint(
            tokens: CospacePushService(registry: store, directory: store, credentials: store, now: now, logger: logger),
            events: CospaceEventService(intake: intake, ledger: store, directory: store, registry: store,
                                        authenticator: authenticator, logger: logger))
        deviceAPI = DeviceAPIService(registry: store, directory: store, scheduler: scheduler, pinSender: providers.pinSender,
                                     voiceCaller: providers.voiceCaller,
                                     pinCodec: PinCodec(key: pinKey), now: now,
                                     configuration: configuration.deviceAPI,
                                     logger: logger.with(["component": "deviceAPI"]),
                                     metrics: metrics, prefixBlocks: store, webhookPoster: webhookPoster,
                                     deliveryMetrics: deliveryMetrics)
        bwmi = BWMIService(registry: store, directory: store, ledger: store, intake: intake, scheduler: scheduler, push: providers.push,
                           authenticator: authenticator, policies: policies, now: now, logger: logger.with(["component": "bwmi"]))
        mymsp = MyMSPService(directory: store, senders: store, intake: intake, scheduler: scheduler, now: now,
                             configuration: configuration.mymsp, logger: logger.with(["component": "mymsp"]))
        let reports = configuration.statusReports
        relay = OutboxRelay(store: store.outbox, poster: webhookPoster, clock: clock,
                            encode: CMStatusReportEncoder.encode,
                            configuration: OutboxRelay.Configuration(
                                concurrency: reports.concurrency, pollInterval: reports.pollInterval,
                                schedule: RetrySchedule(initialDelay: reports.initialRetryDelay,
                                                        maximumDelay: reports.maximumRetryDelay,
                                                        giveUpAfter: reports.giveUpAfter)),
                            logger: logger.with(["component": "statusReports"]), metrics: deliveryMetrics)
    }

    func register(in router: inout HTTPRouter) {
        CMGatewayEndpoint(service: gateway).register(in: &router)
        SCGMessagingEndpoint(service: scg).register(in: &router)
        DeviceAPIEndpoint(service: deviceAPI).register(in: &router)
        BWMIEndpoint(service: bwmi).register(in: &router)
        cospace.register(in: &router)
        MyMSPEndpoint(service: mymsp).register(in: &router)
        providers.register(in: &router, scheduler: scheduler)
    }

    /// Starts recovery of in-flight deliveries and timers, the providers (SMPP binds), the scheduler, the relay and
    /// housekeeping, and returns at once: the deliveries load in the background (``Scheduler/loadRecovered(pageKeys:readsInFlight:)``)
    /// while new messages are accepted. A receipt, report or fallback request for a delivery not loaded yet waits
    /// for it (an SMSC sends the receipts it kept for us as soon as we bind), and no timer fires before its deadline.
    ///
    /// On a cluster node there is no recovery of every delivery: the lease loop starts, and after each of its rounds
    /// the scheduler loads the partitions the node gained and drops the ones it lost (``Scheduler/reconcile(with:)``).
    func start() async throws {
        try await deviceAPI.restorePrefixBlocks()
        if let membership {
            startMembership(membership)
        } else {
            try await scheduler.beginRecovery()
            startRecovery()
        }
        providers.start()
        startLoops()
    }

    /// The lease loop, and one task that reconciles the scheduler with each round's leases, the newest first (a round
    /// that ends while a reconciliation still loads partitions waits for it; older rounds are skipped).
    private func startMembership(_ membership: ClusterMembership) {
        let (rounds, continuation) = AsyncStream.makeStream(of: [LeaseRef].self, bufferingPolicy: .bufferingNewest(1))
        let scheduler = scheduler, workPartitions = workPartitions, drainer = drainer
        tasks.add(Task {
            for await held in rounds {
                let changes = await scheduler.reconcile(with: held)
                if changes.recovery.deliveries > 0 { ProcessIO.releaseFreeHeap() }
                workPartitions?(await scheduler.loadedPartitions.map(\.partition))
                if !changes.loaded.isEmpty { await drainer.wake() }  // spools may wait in the partitions it took
            }
        })
        workPartitions?([])  // none until the first round's partitions are loaded
        membership.start { held in continuation.yield(held) }
    }

    /// Loads the deliveries a single server's previous run left in flight.
    private func startRecovery() {
        let scheduler = scheduler, logger = logger
        let started = ContinuousClock.now
        tasks.add(Task {
            do {
                let report = try await scheduler.loadRecovered()
                if report.deliveries > 0 { ProcessIO.releaseFreeHeap() }  // the pages' memory, freed, back to the kernel
                let elapsed = started.duration(to: .now)
                logger.info("deliveries recovered", ["deliveries": .int(Int64(report.deliveries)),
                                                     "timersArmed": .int(Int64(report.timersArmed)),
                                                     "timersOverdue": .int(Int64(report.timersOverdue)),
                                                     "pushesResent": .int(Int64(report.pushesResent)),
                                                     "smsResent": .int(Int64(report.smsResent)),
                                                     "commandsHeld": .int(Int64(report.commandsHeld)),
                                                     "milliseconds": .int(elapsed.components.seconds * 1_000
                                                                          + elapsed.components.attoseconds / 1_000_000_000_000_000)])
            } catch {
                logger.info("recovery stopped", ["error": .string("\(error)")])  // cancelled at shutdown
            }
        })
    }

    /// The scheduler's timers, the status-report relay, the spool drainer and housekeeping.
    private func startLoops() {
        let scheduler = scheduler, relay = relay, store = store, logger = logger
        let retention = configuration.gateway.idempotencyRetention
        let eventRetention = configuration.mymsp.eventRetention
        tasks.add(Task {
            let clock = SystemClock()
            while !Task.isCancelled {
                do {
                    let purged = try await store.purgeMyMSPEvents(before: Timestamp(
                        milliseconds: clock.now().milliseconds - eventRetention.milliseconds))
                    if purged > 0 { logger.info("myMSP events purged", ["count": .int(Int64(purged))]) }
                } catch {
                    logger.error("myMSP event purge failed", ["error": .string("\(error)")])
                }
                try? await Task.sleep(for: .seconds(3_600))
            }
        })
        tasks.add(Task { await scheduler.run() })
        tasks.add(Task { await relay.run() })
        // Spools left by the previous run continue where they stand.
        let drainer = drainer
        tasks.add(Task { await drainer.run() })
        tasks.add(Task {
            let clock = SystemClock()
            while !Task.isCancelled {
                do {
                    let purged = try await store.purgeIdempotencyKeys(createdBefore: Timestamp(
                        milliseconds: clock.now().milliseconds - retention.milliseconds))
                    if purged > 0 { logger.info("idempotency keys purged", ["count": .int(Int64(purged))]) }
                } catch {
                    logger.error("idempotency purge failed", ["error": .string("\(error)")])
                }
                try? await Task.sleep(for: .seconds(600))
            }
        })
    }

    /// Stops the loops and lets sends already started finish (bounded by `grace`).
    ///
    /// A cluster node then leaves the cluster: its partitions are released at once (after what was sent is recorded),
    /// so that the other nodes take them over in their next round instead of after the leases run out.
    func stop(grace: Duration) async {
        tasks.cancelAll()
        let dispatcher = dispatcher
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await dispatcher.waitUntilIdle() }
            group.addTask { try? await Task.sleep(for: grace) }
            await group.next()
            group.cancelAll()
        }
        if let membership {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread {
                    membership.leave()
                    continuation.resume()
                }.start()
            }
        }
        await providers.shutdown()
    }
}

/// Tasks to cancel together at shutdown.
final class TaskBag: Sendable {
    private let tasks = Mutex<[Task<Void, Never>]>([])
    func add(_ task: Task<Void, Never>) { tasks.withLock { $0.append(task) } }
    func cancelAll() { for task in tasks.withLock({ $0 }) { task.cancel() } }
}
