import TandemCore

/// Posts queued status reports to senders' webhooks and keeps retrying the ones that fail.
///
/// Each pass takes the due reports (oldest first), posts them concurrently, and records each outcome
/// durably: a 2xx marks the report delivered; anything else reschedules it by the ``RetrySchedule``
/// (honouring `Retry-After`), until the schedule gives up and the report is marked abandoned.
///
/// Guarantees: a report is posted by one pass at a time (passes do not overlap), so a live process never
/// posts it twice once a 2xx was recorded. Not guaranteed: exactly-once across a crash — a crash after
/// the receiver answered 2xx and before the outcome was stored posts the report again after restart
/// (at least once; receivers can deduplicate on the delivery key and status).
public final class OutboxRelay: Sendable {
    public struct Configuration: Sendable {
        public var batchSize = 200
        public var concurrency = 16
        /// How often to look for new reports when none is due earlier.
        public var pollInterval: Duration = .milliseconds(250)
        public var schedule = RetrySchedule()

        public init(batchSize: Int = 200, concurrency: Int = 16, pollInterval: Duration = .milliseconds(250),
                    schedule: RetrySchedule = RetrySchedule()) {
            self.batchSize = batchSize
            self.concurrency = concurrency
            self.pollInterval = pollInterval
            self.schedule = schedule
        }
    }

    /// Turns a queued report into the request body the sender expects (CM's JSON or XML).
    public typealias Encoder = @Sendable (OutboxItem) -> (contentType: String, body: [UInt8])

    private let store: any OutboxStore
    private let poster: any WebhookPoster
    private let clock: any SchedulerClock
    private let encode: Encoder
    private let configuration: Configuration
    private let logger: Logger
    private let random: @Sendable () -> Double
    private let metrics: DeliveryMetrics

    public init(store: any OutboxStore, poster: any WebhookPoster, clock: any SchedulerClock, encode: @escaping Encoder,
                configuration: Configuration = Configuration(), logger: Logger = .discarding,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, metrics: DeliveryMetrics = .discarding) {
        self.store = store
        self.metrics = metrics
        self.poster = poster
        self.clock = clock
        self.encode = encode
        self.configuration = configuration
        self.logger = logger
        self.random = random
    }

    /// What one pass did.
    public struct PassResult: Sendable, Hashable {
        public var delivered = 0
        public var rescheduled = 0
        public var abandoned = 0
        public var attempted: Int { delivered + rescheduled + abandoned }
    }

    /// Posts every report due now (up to a batch) and records the outcomes.
    @discardableResult
    public func runOnce() async throws -> PassResult {
        let due = try await store.dueReports(now: clock.now(), limit: configuration.batchSize)
        var result = PassResult()
        var index = 0
        while index < due.count {
            let slice = due[index..<min(due.count, index + max(1, configuration.concurrency))]
            index += slice.count
            let outcomes = await withTaskGroup(of: (OutboxItem, WebhookResult).self) { group in
                for item in slice {
                    group.addTask {
                        let request = self.encode(item)
                        return (item, await self.poster.post(url: item.url, contentType: request.contentType, body: request.body))
                    }
                }
                var outcomes: [(OutboxItem, WebhookResult)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            for (item, outcome) in outcomes {
                try await record(outcome, for: item, into: &result)
            }
        }
        return result
    }

    private func record(_ outcome: WebhookResult, for item: OutboxItem, into result: inout PassResult) async throws {
        let attempts = item.attempts + 1
        let now = clock.now()
        switch outcome {
        case .delivered:
            try await store.markDelivered(item.id, attempts: attempts, at: now)
            result.delivered += 1
            metrics.statusReport(.sent)
        case .failed(let reason, let retryAfter):
            if let next = configuration.schedule.nextAttempt(after: attempts, now: now, queuedAt: item.createdAt,
                                                             unit: random(), retryAfter: retryAfter) {
                try await store.reschedule(item.id, attempts: attempts, next: next, error: reason)
                result.rescheduled += 1
                metrics.statusReport(.retried)
            } else {
                try await store.abandon(item.id, attempts: attempts, at: now, error: reason)
                result.abandoned += 1
                metrics.statusReport(.givenUp)
                logger.warning("status report abandoned", ["outbox": .int(item.id), "attempts": .int(Int64(attempts)),
                                                           "error": .string(reason)])
            }
        }
    }

    /// Runs passes until the task is cancelled, sleeping until the next report is due (at most
    /// `pollInterval`, so new reports are picked up promptly).
    public func run() async {
        while !Task.isCancelled {
            do {
                let pass = try await runOnce()
                if pass.attempted >= configuration.batchSize { continue }
                let now = clock.now()
                var wake = now + configuration.pollInterval
                if let due = try await store.nextDue(), due < wake { wake = max(due, now) }
                try await clock.sleep(until: wake)
            } catch is CancellationError {
                return
            } catch {
                logger.error("outbox pass failed", ["error": .string("\(error)")])
                try? await clock.sleep(until: clock.now() + configuration.pollInterval)
            }
        }
    }
}
