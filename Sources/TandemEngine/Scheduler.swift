import Synchronization
import TandemCore

/// The single owner of in-flight deliveries and of the timer wheel.
///
/// Every mutation goes through one pipeline: commands are applied to the deliveries in memory in batches,
/// in arrival order, each batch persisted in ONE store commit (snapshots, event log, report outbox,
/// registration invalidations) and only acted on once that committed: timers go into the wheel and network
/// actions to the dispatcher. Up to ``commitsInFlight`` commits are queued at once — the next batch is
/// prepared while the previous one is written, once as much work waits — on one ``CommitChain``, so a batch is never stored unless
/// every batch before it was; commands arriving meanwhile wait and form the next batch. A caller is answered
/// after its batch committed, so an accepted message or a recorded receipt survives `kill -9`. If a commit
/// fails, its batch and every later one still in flight are undone (their deliveries restored to their
/// state before them, newest first) and every caller of them gets the error.
///
/// Time comes from the injected clock. Deadlines are absolute `Timestamp`s, rounded *up* to whole ticks in
/// the wheel, so a timer never fires early and fires within one tick (plus the run loop's latency).
/// Not guaranteed: fairness between deliveries within a batch, or a bound on memory (every in-flight
/// delivery is held in memory; final ones are dropped).
public actor Scheduler {
    public struct Configuration: Sendable {
        /// The wheel's tick: timer resolution and the run loop's longest sleep.
        public var tick: Duration = .milliseconds(10)
        /// Timers to make room for up front, so the wheel's index never pauses to grow below this count
        /// (growing at 10M pending takes ~150 ms inside one schedule; presized, the slowest is ~2 ms).
        public var expectedTimers: Int = 0
        /// How long an SMS report that matches no delivery waits for the submission it may have overtaken.
        public var smsReportGrace: Duration = .seconds(10)
        /// How long a submitted SMS still waits for its final report after its validity ended (each new
        /// delivery's `Delivery.smsReportWait`); with none by then it ends Failed (`smsReportMissing`).
        public var smsReportWait: Duration = Delivery.defaultSMSReportWait
        public init(tick: Duration = .milliseconds(10), expectedTimers: Int = 0, smsReportGrace: Duration = .seconds(10),
                    smsReportWait: Duration = Delivery.defaultSMSReportWait) {
            self.tick = tick
            self.expectedTimers = expectedTimers
            self.smsReportGrace = smsReportGrace
            self.smsReportWait = smsReportWait
        }
    }

    /// A message for one recipient, routed and ready to start.
    public struct NewDelivery: Sendable {
        public let recipient: DeliveryRecipient
        public let content: MessageContent
        /// The delivery's first event: `.routed` with the routing decision, `.expired` or `.cancelledBySender`.
        public let start: DeliveryEvent
        public let smsValidity: Duration

        public init(recipient: DeliveryRecipient, content: MessageContent, decision: RoutingDecision, smsValidity: Duration) {
            self.init(recipient: recipient, content: content, start: .routed(decision), smsValidity: smsValidity)
        }

        private init(recipient: DeliveryRecipient, content: MessageContent, start: DeliveryEvent, smsValidity: Duration) {
            self.recipient = recipient
            self.content = content
            self.start = start
            self.smsValidity = smsValidity
        }

        /// A recipient whose message's validity ended before it could start (it waited in a spool): the
        /// delivery is stored already final, Expired and reported, and sends nothing.
        public static func expired(recipient: DeliveryRecipient, content: MessageContent) -> NewDelivery {
            NewDelivery(recipient: recipient, content: content, start: .expired, smsValidity: .zero)
        }

        /// A recipient whose sender cancelled the message before it started (it waited in a spool): the
        /// delivery is stored already final (resolution `cancelled`) and sends nothing.
        public static func cancelled(recipient: DeliveryRecipient, content: MessageContent) -> NewDelivery {
            NewDelivery(recipient: recipient, content: content, start: .cancelledBySender, smsValidity: .zero)
        }
    }

    /// What became of an event handed to `record`.
    public enum EventOutcome: Sendable, Hashable {
        /// Applied to an in-flight delivery and committed.
        case applied
        /// The delivery is already final: the event went to its log only.
        case loggedAfterFinal
    }

    /// The install a receipt comes from, as its API knows it: its app and the number it verified (CM's
    /// device API), or the registration itself (APIs that address devices directly).
    public struct ReceiptSender: Sendable, Hashable {
        public let app: AppKey
        public let recipient: DeliveryRecipient

        public init(app: AppKey, msisdn: MSISDN) {
            self.init(app: app, recipient: .msisdn(msisdn))
        }

        public init(app: AppKey, recipient: DeliveryRecipient) {
            self.app = app
            self.recipient = recipient
        }
    }

    /// What became of a receipt handed to ``recordReceipt(_:for:from:)``.
    public enum ReceiptOutcome: Sendable, Hashable {
        /// Applied to the delivery in flight and committed.
        case recorded
        /// The delivery is in flight but its message was not sent through this app to this number: nothing
        /// was recorded.
        case notTheRecipient
        /// No delivery with this key is in flight (it is final, or there is none): nothing was recorded; the
        /// caller checks the store and, for a delivery that exists, records the events with ``record(_:)``.
        case notInFlight
    }

    typealias Entry = StoredDelivery

    /// An in-flight delivery as the scheduler holds it: boxed, so the table moves a pointer and an event
    /// changes the delivery in place (a `StoredDelivery` value copied in and out of the table on every
    /// event was a quarter of `process`'s time). Confined to the actor; only copies leave it.
    final class InFlight {
        var entry: Entry
        /// When it was accepted; nil for a delivery recovered after a restart.
        let acceptedAt: Timestamp?
        init(_ entry: Entry, acceptedAt: Timestamp? = nil) {
            self.entry = entry
            self.acceptedAt = acceptedAt
        }
    }

    /// What `/metrics` reads of the scheduler without entering it: updated after every batch (the timers'
    /// horizons at most once a second while there are many).
    public struct Gauges: Sendable, Hashable {
        public var inFlight = 0
        public var timers = 0
        /// Pending timers due within each of ``horizons``, then beyond the last.
        public var timersByHorizon: [Int] = []
        /// Upper bounds of the horizons and their names (`le_1m` … `gt_1d`).
        public static let horizons: [(name: String, bound: Duration)] = [
            ("le_1m", .seconds(60)), ("le_10m", .seconds(600)), ("le_1h", .seconds(3_600)), ("le_1d", .seconds(86_400)),
        ]
        public static let beyondName = "gt_1d"
    }

    /// Work for the pipeline; a batch travels as one command and is answered with one continuation.
    enum Command {
        case start([NewDelivery], AcceptedRequest, CheckedContinuation<[DeliveryKey], any Error>)
        case events([(DeliveryKey, DeliveryEvent)], CheckedContinuation<[EventOutcome], any Error>?)
        /// A receipt, with the BWMI acknowledgement to commit with it if it applies.
        case receipt(DeliveryKey, [DeliveryEvent], ReceiptSender, BWMIAcknowledgementWrite?, ReceiptCompletion)

        /// Deliveries started plus events carried (one for a command with neither): the measure of batch sizes.
        var units: Int {
            switch self {
            case .start(let news, _, _): max(1, news.count)
            case .events(let events, _): max(1, events.count)
            case .receipt(_, let events, _, _, _): max(1, events.count)
            }
        }
    }

    /// Gets a receipt's outcome, on the scheduler's executor: it must not block.
    public typealias ReceiptCompletion = @Sendable (Result<ReceiptOutcome, any Error>) -> Void

    let store: any DeliveryStore
    let dispatcher: Dispatcher
    let clock: any SchedulerClock
    let tickMilliseconds: Int64
    let logger: Logger
    let metrics: DeliveryMetrics
    nonisolated let gaugeSnapshot = Mutex(Gauges())
    /// When the timers' horizons were last counted (each count reads every pending timer).
    var horizonsCountedAt: Timestamp?
    var entries = KeyedPages<InFlight>()
    var wheel: TimerWheel
    /// Receipts submitted from outside the actor (``submitReceipt(_:for:from:completion:)``), and the pipeline task
    /// parked while idle.
    nonisolated let inbox = SchedulerInbox()
    /// Commands waiting for room in the pipeline (see ``commitsInFlight``).
    var queue: [Command] = []
    /// Emptied buffers kept for reuse (see ``SpareBuffers``).
    var spares = SpareBuffers()
    /// Deliveries and events in `queue` (a command with neither counts one).
    var queuedUnits = 0
    /// Batches applied in memory whose commits are queued, oldest first.
    var prepared: [PreparedBatch] = []
    /// Whether `finishLoop` runs (or the pipeline was just woken to run it).
    var finishing = false
    /// Whether the pipeline task was started (``startPipeline()``; once).
    var pipelineStarted = false
    /// The chain this scheduler's commits are queued on; replaced after a failed commit.
    var chain = CommitChain()
    /// In-flight SMS parts by provider id, for matching delivery reports.
    var smsParts: [SMSPart: DeliveryKey] = [:]
    /// Reports that overtook their submission, waiting for it.
    var smsWaiters: [SMSPart: [CheckedContinuation<DeliveryKey?, Never>]] = [:]
    /// Deliveries asked to send an SMS whose submission (or rejection) is not recorded yet.
    var smsSubmitsOutstanding: Set<DeliveryKey> = []
    let smsReportGrace: Duration
    let smsReportWait: Duration
    /// Stored deliveries still loading at start-up (``beginRecovery()``); nil once every one is in `entries`.
    var recovery: RecoveryProgress?
    /// Commands naming a delivery recovery has not loaded yet, in arrival order, each with the greatest such key.
    var held: [(DeliveryKey, Command)] = []
    /// Callers waiting for a delivery recovery has not loaded yet (``waitUntilLoaded(_:)``).
    var loadWaiters: [(DeliveryKey, CheckedContinuation<Void, Never>)] = []
    /// On a cluster node, which partitions it may act on (docs/cluster.md); nil on a single server, which owns every
    /// delivery.
    let ownership: (any PartitionOwnership)?
    /// On a cluster node, the partitions whose deliveries are in the table (or loading), by number.
    var partitions: [Int: PartitionState] = [:] {
        didSet { loadedSnapshot.withLock { $0 = loadedPartitions.map(\.partition) } }
    }
    /// The partitions loaded, in order, for readers outside the actor (`/healthz`): see ``actingPartitions``.
    nonisolated let loadedSnapshot = Mutex<[Int]>([])
    /// Commands naming a delivery of a partition still loading, by partition, in arrival order.
    var heldForPartition: [Int: [Command]] = [:]
    /// Where the next new delivery's partition is taken from, among those held (in turn).
    var nextPartition = 0
    /// On a cluster node, where calls for deliveries of partitions not held here go (``Scheduler+Forwarding``).
    var forwarder: (any DeliveryForwarder)?

    public init(store: any DeliveryStore, dispatcher: Dispatcher, clock: any SchedulerClock,
                configuration: Configuration = Configuration(), logger: Logger = .discarding,
                metrics: DeliveryMetrics = .discarding, ownership: (any PartitionOwnership)? = nil) {
        self.store = store
        self.ownership = ownership
        self.metrics = metrics
        self.dispatcher = dispatcher
        self.clock = clock
        let (seconds, attoseconds) = configuration.tick.components
        let tickMilliseconds = max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
        self.tickMilliseconds = tickMilliseconds
        self.logger = logger
        self.smsReportGrace = configuration.smsReportGrace
        self.smsReportWait = configuration.smsReportWait
        self.wheel = TimerWheel(now: Tick(UInt64(max(0, clock.now().milliseconds) / tickMilliseconds)),
                                capacity: max(0, configuration.expectedTimers))
        // In-flight deliveries are about as many as pending timers: presized, the table never rehashes
        // everything inside one flush (a 100k-entry rehash stalled every request for tens of milliseconds).
        self.entries.reserveCapacity(max(0, configuration.expectedTimers))
    }

    deinit {
        inbox.stop()  // the parked pipeline task ends
    }

    // MARK: Commands

    /// Starts deliveries; returns their keys once they are durably stored, in order, together with
    /// `request` (the accepted messages' records and the idempotency key) in the same transaction.
    public func accept(_ deliveries: [NewDelivery], request: AcceptedRequest = AcceptedRequest()) async throws -> [DeliveryKey] {
        guard !deliveries.isEmpty || !request.isEmpty else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            enqueue(.start(deliveries, request, continuation))
        }
    }

    /// Applies an event (receipt, provider verdict, SMS report, manual fallback) once it is committed.
    @discardableResult
    public func record(_ event: DeliveryEvent, for key: DeliveryKey) async throws -> EventOutcome {
        try await record([(key, event)])[0]
    }

    /// Applies several events in order, committed together. On a cluster node with a forwarder, events for
    /// deliveries of partitions not held here go to their owners, one call per partition (``forwardingRecord(_:)``).
    public func record(_ events: [(DeliveryKey, DeliveryEvent)]) async throws -> [EventOutcome] {
        guard !events.isEmpty else { return [] }
        if ownership != nil, forwarder != nil { return try await forwardingRecord(events) }
        return try await recordHere(events)
    }

    /// ``record(_:)`` on this node only: events for a partition not held here fail with ``NotPartitionOwner``.
    func recordHere(_ events: [(DeliveryKey, DeliveryEvent)]) async throws -> [EventOutcome] {
        guard !events.isEmpty else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            enqueue(.events(events, continuation))
        }
    }

    /// Applies an install's receipt (its delivery ack, its read, or both, in order) to the delivery in flight
    /// with this key — if that delivery's message went through `sender`'s app to `sender`'s number — once
    /// committed. The check and the events are one step of the pipeline, so the device API's hottest path
    /// needs no database read for a delivery in flight.
    /// (The same path as ``submitReceipt(_:for:from:completion:)``, awaited.)
    public nonisolated func recordReceipt(_ events: [DeliveryEvent], for key: DeliveryKey, from sender: ReceiptSender,
                                          acknowledgement: BWMIAcknowledgementWrite? = nil) async throws -> ReceiptOutcome {
        try await withCheckedThrowingContinuation { continuation in
            submitReceipt(events, for: key, from: sender, acknowledgement: acknowledgement) { continuation.resume(with: $0) }
        }
    }

    /// ``recordReceipt(_:for:from:)`` for a caller outside any task (an HTTP worker thread): returns at once;
    /// `completion` gets the outcome. While the pipeline runs, its loop takes submitted receipts in after each
    /// commit; only a receipt arriving at an idle scheduler starts a task (each task start may wake a thread).
    ///
    /// `acknowledgement`: a BWMI acknowledgement written in the receipt's own transaction when the receipt is
    /// `recorded` (its ``BWMIAcknowledgementWrite/outcome`` is set by then); with any other outcome nothing of it
    /// was written.
    public nonisolated func submitReceipt(_ events: [DeliveryEvent], for key: DeliveryKey, from sender: ReceiptSender,
                                          acknowledgement: BWMIAcknowledgementWrite? = nil,
                                          completion: @escaping ReceiptCompletion) {
        if inbox.submit(.receipt(key, events, sender, acknowledgement, completion)) { Task { await self.takeSubmitted() } }
    }

    /// The task ``submitReceipt(_:for:from:completion:)`` starts: moves what was submitted into the pipeline.
    func takeSubmitted() {
        while moveSubmitted(endingWatch: !finishing) { prepareQueued() }
    }

    /// Moves submitted receipts into the queue; false when there were none. `endingWatch`: if there were
    /// none, the next submission starts a task — decided under the inbox's lock, so none is left unwatched.
    /// The finish loop keeps watching while it runs, and ends its watch as it stops.
    func moveSubmitted(endingWatch: Bool) -> Bool {
        var commands = takeSpare(\.inbox)
        inbox.take(into: &commands, endingWatch: endingWatch)
        let moved = !commands.isEmpty
        for command in commands { add(command) }
        keepSpare(&commands, \.inbox)
        return moved
    }

    /// Asks for the SMS now (OTP manual fallback). Returns what the delivery's policy and state allowed;
    /// when `.available`, the fallback has been committed.
    public func requestManualFallback(for key: DeliveryKey) async throws -> ManualFallbackAvailability {
        if let partition = forwardedPartition(of: key) {
            guard case .manualFallback(let availability) = try await forward(.manualFallback(key), partition: partition) else {
                throw ForwardingFailed("the owner answered a fallback request with another kind of answer")
            }
            return availability
        }
        return try await requestManualFallbackHere(for: key)
    }

    /// ``requestManualFallback(for:)`` on this node only.
    func requestManualFallbackHere(for key: DeliveryKey) async throws -> ManualFallbackAvailability {
        await waitUntilLoaded(key)
        try await waitUntilPartitionLoaded(of: key)
        guard let inFlight = entries[key] else { return .alreadyFinal }
        let availability = inFlight.entry.delivery.manualFallbackAvailability
        guard availability == .available else { return availability }
        try await record(.manualFallbackRequested, for: key)
        return .available
    }

    /// The delivery's current state, while it is in flight (nil also while recovery has not loaded it yet).
    public func delivery(for key: DeliveryKey) -> Delivery? { entries[key]?.entry.delivery }

    public var inFlightCount: Int { entries.count }

    /// The gauges as of the last batch (read by `/metrics` from any thread).
    public nonisolated var gauges: Gauges { gaugeSnapshot.withLock { $0 } }

    /// Refreshes ``gauges`` after a batch. Counting the horizons reads every timer: done each time while there
    /// are few (under 1,000), else at most once a second — so with many timers the horizons may lag the last
    /// second's changes until the next batch (at 10,000 timers, a count per batch cost ~1% of the CPU of a
    /// single-recipient send).
    func updateGauges() {
        let now = clock.now()
        var horizons: [Int]?
        if wheel.count < 1_000 || horizonsCountedAt.map({ now - $0 >= .seconds(1) }) ?? true {
            let bounds = Gauges.horizons.map { UInt64(max(0, $0.bound.milliseconds) / tickMilliseconds) }
            horizons = wheel.pendingCounts(within: bounds)
            horizonsCountedAt = now
        }
        let (inFlight, timers) = (entries.count, wheel.count)
        gaugeSnapshot.withLock { gauges in
            gauges.inFlight = inFlight
            gauges.timers = timers
            if let horizons { gauges.timersByHorizon = horizons }
        }
    }
    public var pendingTimerCount: Int { wheel.count }

    func enqueue(_ command: Command) {
        add(command)
        prepareQueued()
    }

    /// Appends `command` to the waiting queue (``prepareQueued()`` takes it from there) — or holds it while it names a
    /// delivery that recovery has not loaded yet (``loadRecovered(pageKeys:readsInFlight:)`` releases it, in order).
    func add(_ command: Command) {
        if recovery != nil, let pending = pendingKey(of: command) {
            held.append((pending, command))
            return
        }
        if ownership != nil, let loading = loadingPartition(of: command) {
            heldForPartition[loading, default: []].append(command)
            return
        }
        queue.append(command)
        queuedUnits += command.units
    }
}
