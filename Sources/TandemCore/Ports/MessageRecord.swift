/// The sender's side of one accepted `msg`: everything the gateway accepted beyond what delivering needs
/// (`MessageContent`). Stored in the same transaction as the message's deliveries, so a message is either
/// stored with all its accepted recipients or not at all.
public struct MessageRecord: Sendable, Hashable {
    public let content: MessageContent
    /// The sending account.
    public let account: ProductToken
    public let appKey: AppKey?
    /// `body.type` as the sender gave it (`Auto`, `PlainText`).
    public let bodyType: String
    /// The type in force: the sender's `appMessageType`, else the app's default, else Default.
    public let messageType: AppMessageType
    public let allowedChannels: AllowedChannels
    /// The absolute end of the message's validity, if the sender gave one.
    public let validUntil: Timestamp?
    public let customGroupings: [String?]
    public let dcs: Int?
    /// `richContent` as compact JSON text, stored and not used by SMS or push.
    public let richContent: String?
    /// The earlier message this one is an OTP manual fallback for.
    public let fallbackFor: GUID?
    public let createdAt: Timestamp
    /// The API it came through (``SendCommand/api``).
    public let api: String
    /// API-specific fields as compact JSON text (``SendCommand/extra``).
    public let extra: String?

    public init(content: MessageContent, account: ProductToken, appKey: AppKey?, bodyType: String,
                messageType: AppMessageType, allowedChannels: AllowedChannels, validUntil: Timestamp?,
                customGroupings: [String?], dcs: Int?, richContent: String?, fallbackFor: GUID?, createdAt: Timestamp,
                api: String = "cm", extra: String? = nil) {
        self.content = content
        self.account = account
        self.appKey = appKey
        self.bodyType = bodyType
        self.messageType = messageType
        self.allowedChannels = allowedChannels
        self.validUntil = validUntil
        self.customGroupings = customGroupings
        self.dcs = dcs
        self.richContent = richContent
        self.fallbackFor = fallbackFor
        self.createdAt = createdAt
        self.api = api
        self.extra = extra
    }
}

/// A response kept under the sender's `Idempotency-Key`, so a retried request gets the first answer
/// byte for byte. Stored in the same transaction as the deliveries the first request created.
public struct IdempotencyRecord: Sendable, Hashable {
    public let account: ProductToken
    public let key: String
    /// A digest of the request (method, path, body) that first used the key: a different request under
    /// the same key is refused rather than answered with the wrong response.
    public let requestDigest: String
    public let status: Int
    public let contentType: String
    public let body: [UInt8]
    public let createdAt: Timestamp

    public init(account: ProductToken, key: String, requestDigest: String, status: Int, contentType: String,
                body: [UInt8], createdAt: Timestamp) {
        self.account = account
        self.key = key
        self.requestDigest = requestDigest
        self.status = status
        self.contentType = contentType
        self.body = body
        self.createdAt = createdAt
    }
}

/// What an accepted request stores besides its deliveries, in the same transaction.
public struct AcceptedRequest: Sendable, Hashable {
    public var messages: [MessageRecord]
    public var idempotency: IdempotencyRecord?
    /// Spooled messages' recipients, stored compactly for the ``RecipientSpoolStore``'s drainer to start later.
    public var spools: [RecipientSpool]
    /// The drainer's progress through a spool: stored with the deliveries it started, so a recipient is
    /// started exactly once even across a crash.
    public var spoolProgress: [SpoolProgress]

    public init(messages: [MessageRecord] = [], idempotency: IdempotencyRecord? = nil, spools: [RecipientSpool] = [],
                spoolProgress: [SpoolProgress] = []) {
        self.messages = messages
        self.idempotency = idempotency
        self.spools = spools
        self.spoolProgress = spoolProgress
    }

    public var isEmpty: Bool { messages.isEmpty && idempotency == nil && spools.isEmpty && spoolProgress.isEmpty }
}

/// The accepted recipients of a bulk message, in request order, kept as one compact row instead of a
/// delivery each: the request is answered once they are durable, and deliveries start from the spool in
/// the background. The message's ``MessageRecord`` is in the same request.
public struct RecipientSpool: Sendable, Hashable {
    public let messageID: GUID
    public let recipients: [MSISDN]

    public init(messageID: GUID, recipients: [MSISDN]) {
        precondition(!recipients.isEmpty, "a spool holds at least one recipient")
        self.messageID = messageID
        self.recipients = recipients
    }
}

/// A spool's recipients `0..<started` have deliveries (from `before` on, they were started by the request that
/// carries this progress). The store refuses progress that does not continue from `before`.
public struct SpoolProgress: Sendable, Hashable {
    public let messageID: GUID
    public let before: Int
    public let started: Int

    public init(messageID: GUID, before: Int, started: Int) {
        precondition(0 <= before && before < started, "progress starts at least one recipient")
        self.messageID = messageID
        self.before = before
        self.started = started
    }
}
