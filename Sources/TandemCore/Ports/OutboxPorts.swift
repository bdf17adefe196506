/// The durable queue of status reports (`outbox`). Every call is one durable transaction.
public protocol OutboxStore: Sendable {
    /// Reports due at `now` (not delivered, not abandoned), oldest due first, at most `limit`.
    func dueReports(now: Timestamp, limit: Int) async throws -> [OutboxItem]
    /// The earliest `next_attempt_at` among pending reports that ``dueReports(now:limit:)`` would give once that time
    /// comes — not a myMSP event held behind an earlier one to its URL — if any.
    func nextDue() async throws -> Timestamp?
    func markDelivered(_ id: Int64, attempts: Int, at: Timestamp) async throws
    func reschedule(_ id: Int64, attempts: Int, next: Timestamp, error: String) async throws
    /// Gives up on a report: it stays in the table, marked abandoned with the last error.
    func abandon(_ id: Int64, attempts: Int, at: Timestamp, error: String) async throws
}

/// One queued status report, or one myMSP notification event (`outbox.kind`).
public struct OutboxItem: Sendable, Hashable {
    public let id: Int64
    public let url: String
    public let format: WebhookFormat
    public let content: Content
    /// Attempts made so far.
    public let attempts: Int
    public let createdAt: Timestamp

    /// What the relay posts.
    public enum Content: Sendable, Hashable {
        /// A delivery's status report, in the account's webhook `format`.
        case statusReport(StatusReportPayload)
        /// A myMSP event, posted as a form; queued in event order per URL, and posted in that order.
        case mymspEvent(MyMSPEvent)
    }

    public init(id: Int64, url: String, format: WebhookFormat, content: Content, attempts: Int, createdAt: Timestamp) {
        self.id = id
        self.url = url
        self.format = format
        self.content = content
        self.attempts = attempts
        self.createdAt = createdAt
    }
}

/// Posts a status report to a sender's webhook.
public protocol WebhookPoster: Sendable {
    func post(url: String, contentType: String, body: [UInt8]) async -> WebhookResult
}

public enum WebhookResult: Sendable, Hashable {
    /// The receiver answered 2xx.
    case delivered(status: Int)
    /// Anything else: a non-2xx answer or a transport error; `retryAfter` when the receiver asked for one.
    case failed(reason: String, retryAfter: Duration?)
}

/// When to try a failed report again: exponential backoff with jitter, giving up after `giveUpAfter`
/// (counted from when the report was queued). Pure: the caller supplies the jitter fraction.
public struct RetrySchedule: Sendable, Hashable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    /// Total time a report is retried for (default 7 days).
    public var giveUpAfter: Duration
    /// Each delay is multiplied by a factor in `1 ± jitter` (0 ≤ jitter < 1).
    public var jitter: Double

    public init(initialDelay: Duration = .seconds(5), maximumDelay: Duration = .seconds(3_600),
                giveUpAfter: Duration = .seconds(7 * 86_400), jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.giveUpAfter = giveUpAfter
        self.jitter = jitter
    }

    /// The next attempt after failed attempt number `attempts` (1 = the first attempt failed), or nil
    /// when the report should be given up. `unit` is a random number in 0..<1 choosing the jitter; a
    /// receiver's `Retry-After` is honoured when it asks for longer.
    public func nextAttempt(after attempts: Int, now: Timestamp, queuedAt: Timestamp, unit: Double,
                            retryAfter: Duration? = nil) -> Timestamp? {
        let initial = Double(initialDelay.milliseconds)
        let exponent = Double(max(0, min(attempts - 1, 40)))
        var delay = min(initial * Self.power(2, exponent), Double(maximumDelay.milliseconds))
        delay *= 1 + jitter * (2 * min(max(unit, 0), 1) - 1)
        if let retryAfter { delay = max(delay, Double(retryAfter.milliseconds)) }
        let next = Timestamp(milliseconds: now.milliseconds + max(1, Int64(delay.rounded(.up))))
        return next.milliseconds - queuedAt.milliseconds > giveUpAfter.milliseconds ? nil : next
    }

    private static func power(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= base }
        return result
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    public var milliseconds: Int64 {
        components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
    }
}
