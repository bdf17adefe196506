import TandemCore


/// Starts spooled recipients (``RecipientSpool``) in the background, a chunk at a time: the sending accounts
/// take turns, a chunk each, and each account's spooled messages go oldest first. Each chunk is routed with
/// the registrations as they are when it starts, and its deliveries are committed together with the spool's
/// progress, so a crash neither loses nor repeats a recipient; after a restart, ``run()`` continues where the
/// spool stands.
///
/// Messages below the gateway's spool threshold are never spooled, so an OTP never queues behind a bulk
/// send. Flow control: no chunk starts while the scheduler holds `maxInFlight` deliveries or more (a large
/// send is started as fast as it is carried, not all at once into memory). A chunk that fails (the store
/// refused it) is retried with a doubling pause, up to a minute, and logged each time.
/// Not guaranteed: fairness between one account's messages (its oldest is drained before its next starts).
public actor SpoolDrainer {
    public struct Configuration: Sendable {
        /// Recipients started per transaction.
        public var chunk: Int = 256
        /// In-flight deliveries (all of them, spooled or not) above which no chunk starts.
        public var maxInFlight: Int = 1_000_000
        /// How long an SMS may wait for its final report when the sender gave no `validity`.
        public var defaultSMSValidity: Duration = .seconds(48 * 3_600)
        /// The pause while the scheduler is full, and after a chunk failed.
        public var pause: Duration = .milliseconds(50)
        /// While no spool waits, look again after this long even if not woken: on a cluster node, where another node
        /// may commit a spool in a partition this one drains (docs/cluster.md); nil: only when woken (a single
        /// server wakes its drainer with every spool it commits).
        public var idleRecheck: Duration?

        public init(chunk: Int = 256, maxInFlight: Int = 1_000_000, defaultSMSValidity: Duration = .seconds(48 * 3_600),
                    pause: Duration = .milliseconds(50), idleRecheck: Duration? = nil) {
            precondition(chunk > 0 && maxInFlight > 0, "chunk and maxInFlight must be positive")
            self.chunk = chunk
            self.maxInFlight = maxInFlight
            self.defaultSMSValidity = defaultSMSValidity
            self.pause = pause
            self.idleRecheck = idleRecheck
        }
    }

    private let spool: any RecipientSpoolStore
    private let directory: any SenderDirectory
    private let scheduler: Scheduler
    private let policies: PolicySet
    private let now: @Sendable () -> Timestamp
    private let configuration: Configuration
    private let logger: Logger
    /// Set by ``wake()``: something may have been spooled since the loop last looked.
    private var woken = false
    private var sleeper: CheckedContinuation<Void, Never>?
    /// Chunks that failed in a row.
    private var failures = 0
    /// The queue (sending account) the last chunk came from: the next chunk comes from the next queue.
    private var lastQueue: Int64?
    /// One chunk at a time, whoever asks (the loop, or a fallback draining one message): two steps reading
    /// the same spool position would start its recipients twice (the store refuses the second).
    private var stepping = false
    private var stepWaiters: [CheckedContinuation<Void, Never>] = []
    public private(set) var recipientsStarted = 0

    public init(spool: any RecipientSpoolStore, directory: any SenderDirectory, scheduler: Scheduler, policies: PolicySet,
                now: @escaping @Sendable () -> Timestamp, configuration: Configuration = Configuration(),
                logger: Logger = .discarding) {
        self.spool = spool
        self.directory = directory
        self.scheduler = scheduler
        self.policies = policies
        self.now = now
        self.configuration = configuration
        self.logger = logger
    }

    /// Drains the spools until cancelled, sleeping while none wait (until ``wake()``).
    public func run() async {
        while !Task.isCancelled {
            woken = false
            if await scheduler.inFlightCount >= configuration.maxInFlight {
                try? await Task.sleep(for: configuration.pause)
                continue
            }
            do {
                let started = try await startNextChunk()
                failures = 0
                if started { continue }
            } catch {
                failures += 1
                let pause = configuration.pause * (1 << min(failures - 1, 10))
                logger.error("spooled recipients not started", ["error": .string("\(error)"), "failures": .int(Int64(failures))])
                try? await Task.sleep(for: min(pause, .seconds(60)))
                continue
            }
            if !woken { await sleepUntilWoken() }
        }
    }

    /// Tells ``run()`` that a spool was committed.
    public func wake() {
        woken = true
        sleeper?.resume()
        sleeper = nil
    }

    /// Starts every waiting recipient of `message` now (before a fallback reads the message's deliveries).
    public func drain(message: GUID) async throws {
        while try await startNextChunk(of: message) {}
    }

    /// Ends every recipient of `message` still waiting in its spool as cancelled by its sender: each gets a
    /// delivery stored already final (resolution `cancelled`) that sends nothing, chunk by chunk, with the spool's
    /// progress. Serialised with chunk starts: once this returns, every recipient of the message has a delivery,
    /// and those started before the cancel are in the store for the caller to cancel in turn.
    /// Returns how many recipients it ended.
    public func cancel(message: GUID) async throws -> Int {
        var ended = 0
        while let count = try await startNextChunk(of: message, cancelled: true) { ended += count }
        return ended
    }

    /// Starts every waiting recipient of every spool, ignoring flow control (tests, and an operator's drain).
    public func drainAll() async throws {
        while try await startNextChunk() {}
    }

    private func sleepUntilWoken() async {
        let recheck = configuration.idleRecheck.map { after in
            Task { [weak self] in
                try? await Task.sleep(for: after)
                await self?.wake()
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { sleeper = $0 }
        } onCancel: {
            Task { await self.wake() }
        }
        recheck?.cancel()
    }

    /// Starts the next chunk (of `message`, if given); false when none waits.
    public func startNextChunk(of message: GUID? = nil) async throws -> Bool {
        try await startNextChunk(of: message, cancelled: false) != nil
    }

    /// Starts the next chunk — routed, or ended as cancelled by the sender — and says how many recipients it
    /// had; nil when none waits.
    private func startNextChunk(of message: GUID?, cancelled: Bool) async throws -> Int? {
        if stepping {
            await withCheckedContinuation { stepWaiters.append($0) }
        } else {
            stepping = true
        }
        defer {
            if stepWaiters.isEmpty { stepping = false } else { stepWaiters.removeFirst().resume() }
        }
        guard let chunk = try await spool.nextSpoolChunk(limit: configuration.chunk, message: message, afterQueue: lastQueue) else {
            return nil
        }
        if message == nil { lastQueue = chunk.queue }
        if cancelled {
            let deliveries = chunk.recipients.map { Scheduler.NewDelivery.cancelled(recipient: .msisdn($0), content: chunk.content) }
            _ = try await scheduler.accept(deliveries, request: AcceptedRequest(spoolProgress: [chunk.progress]))
            return deliveries.count
        }
        let now = now()
        var app: App?
        var registrations: [MSISDN: [Registration]] = [:]
        // The account's country rule for SMS (recipients only SMS could reach were refused at acceptance);
        // a message without an app was decided whole at acceptance.
        var countries = SMSCountryPolicy()
        if let key = chunk.routing.appKey, let found = try await directory.app(key: key) {
            app = found
            registrations = try await directory.registrations(app: found.key, msisdns: chunk.recipients)
            countries = try await directory.account(productToken: found.account)?.smsCountries ?? SMSCountryPolicy()
        }
        let deliveries = chunk.recipients.map { msisdn -> Scheduler.NewDelivery in
            if let until = chunk.validUntil, until <= now { return .expired(recipient: .msisdn(msisdn), content: chunk.content) }
            let routed = Router.route(chunk.routing, app: app, registrations: registrations[msisdn] ?? [], policies: policies)
            let (decision, region) = countries.restrict(routed, msisdn: msisdn)
            if let region {
                logger.warning("spooled SMS caught by the account's country rule",
                               ["msisdn": .msisdn(msisdn), "region": .string(region.text), "mode": .string(countries.mode.rawValue)])
            }
            return Scheduler.NewDelivery(recipient: .msisdn(msisdn), content: chunk.content, decision: decision,
                                         smsValidity: chunk.validUntil.map { $0 - now } ?? configuration.defaultSMSValidity)
        }
        _ = try await scheduler.accept(deliveries, request: AcceptedRequest(spoolProgress: [chunk.progress]))
        recipientsStarted += deliveries.count
        return deliveries.count
    }
}
