/// The next recipients of a spooled message (``RecipientSpool``) to start, with what routing them needs.
public struct SpoolChunk: Sendable, Hashable {
    public let content: MessageContent
    /// The message's `allowedChannels`, `appKey` and the type in force when it was accepted.
    public let routing: RoutingRequest
    /// The end of the message's validity, if the sender gave one.
    public let validUntil: Timestamp?
    /// The spool index of `recipients[0]`: recipients before it have deliveries already.
    public let first: Int
    public let recipients: [MSISDN]
    /// The spool's size.
    public let total: Int
    /// The queue the spool is in (its sending account); queues take turns, a chunk each.
    public let queue: Int64

    public init(content: MessageContent, routing: RoutingRequest, validUntil: Timestamp?, first: Int,
                recipients: [MSISDN], total: Int, queue: Int64) {
        self.content = content
        self.routing = routing
        self.validUntil = validUntil
        self.first = first
        self.recipients = recipients
        self.total = total
        self.queue = queue
    }

    /// What starting this chunk's recipients records, with their deliveries.
    public var progress: SpoolProgress {
        SpoolProgress(messageID: content.messageID, before: first, started: first + recipients.count)
    }
}

/// Where spooled recipients wait. A spool is written with its message (``AcceptedRequest/spools``) and
/// advanced with the deliveries started from it (``AcceptedRequest/spoolProgress``); a spool whose every
/// recipient was started is gone.
public protocol RecipientSpoolStore: Sendable {
    /// Up to `limit` unstarted recipients, or nil when none wait: of `message` when given; otherwise of the
    /// oldest spooled message in the first queue after `afterQueue` (wrapping around to the first queue), so
    /// that queues — sending accounts — take turns and one account's large send does not hold up another's.
    func nextSpoolChunk(limit: Int, message: GUID?, afterQueue: Int64?) async throws -> SpoolChunk?
}
