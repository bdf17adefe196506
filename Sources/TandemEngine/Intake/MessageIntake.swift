import TandemCore

/// The one way a message enters the engine, whatever API it arrived through. An adapter decodes its wire
/// format into ``SendCommand``s, authenticates the account, and hands them over; the intake does the rest,
/// once for every API: message ids, the checks that need the registry, the ledger or the clock, routing,
/// the account's SMS country rule, `fallbackFor`, spooling of bulk sends, idempotency, and the commit. The
/// adapter's reply is rendered from the ``IntakeOutcome`` before the commit and returned only after it, so
/// an accepted answer is durable.
///
/// Rules:
/// - an `appKey` must name an app of the sending account, else the message is rejected
///   (``MessageRejection/unknownApp(_:)``);
/// - `fallbackFor` requires SMS only and must name an earlier message of the same account (its id, else its
///   latest message with that reference); the earlier message's in-flight deliveries to the same numbers are
///   withdrawn (where their policy terminates the push on a manual fallback) before the SMS starts; queued
///   (spooled) recipients of the earlier message are started first, so the fallback sees every recipient;
/// - a message with at least `spoolThreshold` accepted number recipients is spooled: the reply follows the
///   commit of the message and its recipient list, and the ``SpoolDrainer`` starts the deliveries;
/// - the adapter's reply may refuse the whole request (``IntakeReply/refuse(_:)``, as CM's XML and GET forms
///   do when anything in them was refused): then nothing is stored;
/// - with an idempotency key, a retry of the same request returns the first reply byte for byte; the same
///   key with a different request digest is refused. The key is a unique row in the store (``IdempotencyKeys``),
///   claimed before the request is processed and completed in the transaction that stores it, so it holds
///   across processes: a request whose key is claimed by one still in progress waits for its reply (up to
///   `idempotencyWait`), and a claim left by a process that died is taken over after `idempotencyClaimTimeout`.
/// Not guaranteed: that the withdrawal of an earlier push and the new message commit together (a crash
/// between them leaves the push withdrawn and the request unanswered, so the sender retries).
public final class MessageIntake: Sendable {
    public struct Configuration: Sendable {
        /// How long an SMS may wait for its final report when the sender gave no validity.
        public var defaultSMSValidity: Duration = .seconds(48 * 3_600)
        /// A message with at least this many accepted number recipients is spooled; nil: never. A
        /// `fallbackFor` message is never spooled.
        public var spoolThreshold: Int?
        /// How long a request waits for another request in progress with its idempotency key before it is
        /// answered ``IntakeResult/idempotencyKeyInProgress``.
        public var idempotencyWait: Duration = .seconds(10)
        /// A claim older than this is taken to be left by a process that died, and taken over.
        public var idempotencyClaimTimeout: Duration = .seconds(60)

        public init(defaultSMSValidity: Duration = .seconds(48 * 3_600), spoolThreshold: Int? = nil) {
            self.defaultSMSValidity = defaultSMSValidity
            self.spoolThreshold = spoolThreshold
        }
    }

    let directory: any SenderDirectory
    let addresses: any PushAddressRegistry
    let keys: any IdempotencyKeys
    /// Checks rendered push sizes at accept time; nil: not checked (the providers shorten the text only).
    let payloads: (any PushPayloadMeasure)?
    let ledger: any MessageLedger
    let scheduler: Scheduler
    /// Starts spooled recipients; nil: nothing is spooled.
    let drainer: SpoolDrainer?
    let policies: PolicySet
    let now: @Sendable () -> Timestamp
    /// A new message's id at that time (time-ordered, random below the milliseconds).
    let messageID: @Sendable (Timestamp) -> GUID
    let configuration: Configuration
    let logger: Logger
    let metrics: DeliveryMetrics

    public init(directory: any SenderDirectory, addresses: any PushAddressRegistry, keys: any IdempotencyKeys,
                payloads: (any PushPayloadMeasure)? = nil,
                ledger: any MessageLedger, scheduler: Scheduler, drainer: SpoolDrainer? = nil,
                policies: PolicySet, now: @escaping @Sendable () -> Timestamp,
                messageID: @escaping @Sendable (Timestamp) -> GUID = MessageIntake.systemRandomMessageID,
                configuration: Configuration = Configuration(), logger: Logger = .discarding,
                metrics: DeliveryMetrics = .discarding) {
        self.messageID = messageID
        self.metrics = metrics
        self.directory = directory
        self.addresses = addresses
        self.keys = keys
        self.payloads = payloads
        self.ledger = ledger
        self.scheduler = scheduler
        self.drainer = drainer
        self.policies = policies
        self.now = now
        self.configuration = configuration
        self.logger = logger
    }

    /// Message ids from the kernel's random source: two `getrandom` calls per id (a server passes a generator drawn
    /// in user space instead; at ~12,000 messages a second the calls cost ~8% of the CPU of a send).
    public static let systemRandomMessageID: @Sendable (Timestamp) -> GUID = { now in
        var generator = SystemRandomNumberGenerator()
        return GUID.timeOrdered(unixMilliseconds: now.milliseconds, using: &generator)
    }

    /// Plans, replies and commits one request. `reply` renders the adapter's answer from the outcome; a reply
    /// to commit is stored under the idempotency key (if any) in the same transaction as the deliveries.
    public func submit(_ request: IntakeRequest, reply: (IntakeOutcome) -> IntakeReply) async -> IntakeResult {
        guard let claim = request.idempotency else { return await process(request, reply: reply) }
        let account = request.account.productToken
        do {
            var pause = Duration.milliseconds(5)
            let waitUntil = ContinuousClock.now + configuration.idempotencyWait
            while true {
                switch try await keys.claimIdempotencyKey(account: account, key: claim.key, digest: claim.digest, at: now()) {
                case .claimed:
                    let result = await process(request, reply: reply)
                    if case .stored = result { return result }
                    // Nothing was stored: the key is free again for a retry.
                    try await keys.releaseIdempotencyKey(account: account, key: claim.key)
                    return result
                case .held(let record):
                    guard record.requestDigest == claim.digest else { return .idempotencyKeyReused }
                    guard record.isPending else {
                        return .replayed(WireReply(status: record.status, contentType: record.contentType, body: record.body))
                    }
                    if now() - record.createdAt > configuration.idempotencyClaimTimeout,
                       try await keys.takeOverIdempotencyKey(account: account, key: claim.key, claimedAt: record.createdAt, at: now()) {
                        logger.warning("idempotency key taken over from a request that never finished",
                                       ["account": .string(request.account.name), "claimedAt": .int(record.createdAt.milliseconds)])
                        return await process(request, reply: reply)
                    }
                    guard ContinuousClock.now < waitUntil else { return .idempotencyKeyInProgress }
                    try await Task.sleep(for: pause)
                    pause = min(pause * 2, .milliseconds(200))
                }
            }
        } catch {
            logger.error("idempotency key not claimed", ["error": .string("\(error)")])
            return .failed
        }
    }

    /// Whether `key` is a usable idempotency key: 1–255 printable ASCII characters.
    public static func isValidIdempotencyKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 255 && key.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }
}

/// One request to the intake: the account's messages, committed together.
public struct IntakeRequest: Sendable {
    public var account: Account
    public var messages: [SendCommand]
    public var idempotency: IdempotencyClaim?
    /// Apps the adapter has just read (or holds from its own short-lived cache, e.g. myMSP's users, 5 s): a
    /// message whose `appKey` names one of them uses it as it is instead of reading it again. It is still
    /// checked to be the account's. Empty: every app is read.
    public var knownApps: [App]

    public init(account: Account, messages: [SendCommand], idempotency: IdempotencyClaim? = nil, knownApps: [App] = []) {
        self.account = account
        self.messages = messages
        self.idempotency = idempotency
        self.knownApps = knownApps
    }
}

/// A sender's idempotency key and the digest of the request that carries it.
public struct IdempotencyClaim: Sendable, Hashable {
    public let key: String
    public let digest: String

    public init(key: String, digest: String) {
        self.key = key
        self.digest = digest
    }
}

/// The adapter's answer to an outcome: store what was accepted and send this, or store nothing.
public enum IntakeReply: Sendable {
    case commit(WireReply)
    case refuse(WireReply)
}

public enum IntakeResult: Sendable {
    /// Stored (whatever was accepted of it); the reply was rendered from the outcome.
    case stored(IntakeOutcome, WireReply)
    /// A retry under an idempotency key: the first request's reply.
    case replayed(WireReply)
    /// The adapter refused the outcome: nothing was stored.
    case refused(WireReply)
    /// The idempotency key was used for a different request.
    case idempotencyKeyReused
    /// Another request with this idempotency key is still being processed (or its process died less than
    /// the claim timeout ago): the sender retries later.
    case idempotencyKeyInProgress
    /// A lookup or the commit failed (logged): nothing was stored.
    case failed
    /// A cluster node cannot take it now — it holds no partition yet, or lost the one it was committing to
    /// (docs/cluster.md): nothing was stored; the sender tries again (another node, or this one in a moment).
    case unavailable
}

extension IntakeResult {
    /// ``IntakeResult/unavailable`` for the errors of a cluster node without the partitions it needs; else ``failed``.
    static func failure(_ error: any Error) -> IntakeResult {
        isPartitionUnavailable(error) ? .unavailable : .failed
    }
}
