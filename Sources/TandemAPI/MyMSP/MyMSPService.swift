import TandemCore
import TandemEngine

/// myMSP's Device Push Notification API as a thin adapter over Tandem's one registry, ``MessageIntake``,
/// the scheduler and the providers:
/// - a myMSP `user` is bound to one app; recipients are registrations of that app (origin `mymsp`) with a
///   numeric id ([`MyMSPDirectory`]); app methods carry only `user` and are limited per client address and
///   per user; `send` and the event poll check `pwd`;
/// - `send` is one ``SendCommand`` (api `mymsp`, push only) whose recipients are the registrations; its msgno
///   (taken from the space notifications and events share) travels as custom data `msgno` and is stored
///   with the message, so `get` reads notifications from the ledger itself;
/// - `get` lists a recipient's notifications and hands each in-flight delivery's acknowledgement to the
///   scheduler as the recipient's receipt;
/// - events are stored with their msgno and queued in the same transaction for the user's event URL (the
///   durable outbox); a dead key's event is made by the store (migration 26).
/// Not guaranteed: that a msgno is used (a `send` refused after taking one leaves a gap, and msgnos are
/// reserved in blocks); that concurrent `send`s to one recipient commit in msgno order (a `get` between
/// their commits may list the higher one first, and a `lastmsgno` taken from it then skips the other);
/// exactly-once event pushes (the outbox posts at least once).
public final class MyMSPService: Sendable {
    /// The API's methods, by the last path segment.
    public enum Method: String, Sendable, CaseIterable {
        case subscribe, updatekey, unsubscribe, unsubscribeall, get, send
        /// The event poll (`/external/notifications/received`).
        case received
    }

    public struct Reply: Sendable, Hashable {
        public var status: Int
        public var body: [UInt8]
        /// Seconds, for a 429.
        public var retryAfter: Int?

        static func accepted(_ values: [String]) -> Reply { Reply(status: 200, body: MyMSPAnswer.accepted(values)) }
        static func refused(_ error: MyMSPError) -> Reply { Reply(status: 200, body: MyMSPAnswer.refused(error)) }
    }

    /// The most notifications one `get` lists, and events one poll lists (ask again from the last msgno).
    public static let pageLimit = 10_000

    let directory: any MyMSPDirectory
    let senders: any SenderDirectory
    let intake: MessageIntake
    let scheduler: Scheduler
    let now: @Sendable () -> Timestamp
    let configuration: Configuration.MyMSP
    let limits: MyMSPLimits
    let numbers: MyMSPNumbers
    let users: MyMSPUsers
    let logger: Logger

    public init(directory: any MyMSPDirectory, senders: any SenderDirectory, intake: MessageIntake, scheduler: Scheduler,
                now: @escaping @Sendable () -> Timestamp, configuration: Configuration.MyMSP = Configuration.MyMSP(),
                logger: Logger = .discarding) {
        self.directory = directory
        self.senders = senders
        self.intake = intake
        self.scheduler = scheduler
        self.now = now
        self.configuration = configuration
        limits = MyMSPLimits(configuration)
        numbers = MyMSPNumbers(directory: directory)
        users = MyMSPUsers(directory: directory, senders: senders)
        self.logger = logger
    }

    /// Answers one request. `path` is the path it came to (an event's `destination`).
    public func handle(_ method: Method, parameters: MyMSPCodec.Parameters, path: String, clientIP: String?) async -> Reply {
        do {
            let credentials = try MyMSPCodec.credentials(parameters, password: method == .send || method == .received)
            guard let entry = try await users.entry(name: credentials.user, now: now()) else { throw MyMSPError.authorization }
            let user = entry.user
            if let password = credentials.password,
               !MyMSPPassword.matches(password, salt: user.passwordSalt, hash: user.passwordHash) {
                throw MyMSPError.authorization
            }
            switch method {
            case .subscribe:
                let request = try MyMSPCodec.subscribe(parameters)
                if let refusal = charge(.subscribe, clientIP: clientIP, user: user) { return refusal }
                return try await subscribe(request, user: user, path: path)
            case .updatekey:
                return try await updateKey(try MyMSPCodec.updateKey(parameters), user: user)
            case .unsubscribe, .unsubscribeall:
                let request = try MyMSPCodec.unsubscribe(parameters)
                switch try await directory.mymspUnsubscribe(user: user, recipient: request.recipient,
                                                            deactivate: method == .unsubscribeall, subject: request.message,
                                                            destination: path, at: now()) {
                case nil: throw MyMSPError.recipientNotFound
                case true?, false?: return .accepted([String(request.recipient)])
                }
            case .get:
                let request = try MyMSPCodec.get(parameters)
                if let refusal = charge(.get, clientIP: clientIP, user: user) { return refusal }
                return try await get(request, user: user)
            case .send:
                return try await send(try MyMSPCodec.send(parameters), user: user, sender: entry.sender)
            case .received:
                let request = try MyMSPCodec.poll(parameters)
                let events = try await directory.mymspEvents(user: user.id, after: request.lastMsgID, limit: Self.pageLimit)
                return Reply(status: 200, body: MyMSPAnswer.events(events, clean: request.clean))
            }
        } catch let error as MyMSPError {
            return .refused(error)
        } catch {
            logger.error("myMSP request failed", ["method": .string(method.rawValue), "error": .string("\(error)")])
            return .refused(.unknown)
        }
    }

    private func charge(_ kind: MyMSPLimits.Budgeted, clientIP: String?, user: MyMSPUser) -> Reply? {
        switch limits.charge(kind, clientIP: clientIP, user: user.id, now: now()) {
        case .allowed:
            return nil
        case .limited(let wait):
            let seconds = Int(max(1, (wait.milliseconds + 999) / 1_000))
            return Reply(status: 429, body: MyMSPAnswer.refused(.unknown), retryAfter: seconds)
        }
    }

    private func subscribe(_ request: MyMSPCodec.Subscribe, user: MyMSPUser, path: String) async throws -> Reply {
        switch try await directory.mymspSubscribe(user: user, recipient: request.recipient, provider: request.provider,
                                                  key: request.key, subject: request.message, destination: path, at: now()) {
        case .done(let recipient, _): return .accepted([String(recipient)])
        case .unknownRecipient: throw MyMSPError.recipientNotFound
        case .keyTaken: throw MyMSPError.invalidKey
        }
    }

    private func updateKey(_ request: MyMSPCodec.UpdateKey, user: MyMSPUser) async throws -> Reply {
        switch try await directory.mymspUpdateKey(user: user, recipient: request.recipient, provider: request.provider,
                                                  key: request.key, at: now()) {
        case .done(let recipient, let reactivated): return .accepted([String(recipient)] + (reactivated ? ["reactivated"] : []))
        case .unknownRecipient: throw MyMSPError.recipientNotFound
        case .keyTaken: throw MyMSPError.invalidKey
        }
    }

    private func get(_ request: MyMSPCodec.Get, user: MyMSPUser) async throws -> Reply {
        guard let recipient = try await directory.mymspRecipient(user: user.id, id: request.recipient) else {
            throw MyMSPError.recipientNotFound
        }
        let notifications = try await directory.mymspNotifications(device: recipient.device, after: request.lastMsgno,
                                                             sentAfter: request.sentAfter, limit: Self.pageLimit)
        // Listed is fetched: the recipient's delivery acknowledgement, as any install's receipt.
        let sender = Scheduler.ReceiptSender(app: user.app, recipient: .device(recipient.device))
        for notification in notifications where !notification.final {
            let logger = logger
            scheduler.submitReceipt([.deliveryAcknowledged(recipient.device)], for: notification.delivery, from: sender) { result in
                if case .failure(let error) = result {
                    logger.error("myMSP get: acknowledgement not recorded",
                                 ["delivery": .int(notification.delivery.rawValue), "error": .string("\(error)")])
                }
            }
        }
        return Reply(status: 200, body: MyMSPAnswer.notifications(notifications))
    }
}
