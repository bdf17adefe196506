import TandemCore
import TandemCrypto
import TandemEngine

/// The CM MESSAGES gateway behind its three wire forms: authenticates the account, validates each `msg`,
/// routes every recipient, and starts the deliveries through the scheduler. The reply is built before the
/// commit and returned only after it: an `Accepted` line is durable.
///
/// Rules beyond the codec's:
/// - the product token comes from the body (or query) and else from `X-CM-PRODUCTTOKEN`; missing or
///   unknown → 101, malformed → 103, disabled account → 101;
/// - an `appKey` must name an app of the sending account, else the `msg` is rejected with 403 (another
///   account's app is indistinguishable from none);
/// - `fallbackFor` requires `allowedChannels: ["SMS"]` and must name an earlier message of the same
///   account (its id, else its reference); the earlier message's in-flight deliveries to the same numbers
///   are withdrawn (where their policy terminates the push on a manual fallback) before the SMS starts;
/// - a `msg` with at least `spoolThreshold` accepted recipients is spooled: the reply follows the commit of
///   the message and its recipient list, and the ``SpoolDrainer`` starts the deliveries; until then the
///   message's lookup lists those recipients as queued. A fallback (either form) for a message with queued
///   recipients starts them first, so it sees every recipient;
/// - XML and GET carry no per-message results: any rejected `msg` or recipient rejects the whole request
///   and nothing is stored;
/// - with an `Idempotency-Key`, a retry of the same request returns the first reply byte for byte; the
///   same key with a different request → HTTP 422.
/// Not guaranteed: that the withdrawal of an earlier push and the new message commit together (a crash
/// between them leaves the push withdrawn and the request unanswered, so the sender retries).
public final class CMGatewayService: Sendable {
    public struct Configuration: Sendable {
        /// How long an SMS may wait for its final report when the sender gave no `validity`.
        public var defaultSMSValidity: Duration = .seconds(48 * 3_600)
        /// A `msg` with at least this many accepted recipients is spooled (its recipients stored as one row
        /// and started by the ``SpoolDrainer``) instead of starting a delivery per recipient before the reply;
        /// nil: never. A `fallbackFor` message is never spooled.
        public var spoolThreshold: Int?
        public init(defaultSMSValidity: Duration = .seconds(48 * 3_600), spoolThreshold: Int? = nil) {
            self.defaultSMSValidity = defaultSMSValidity
            self.spoolThreshold = spoolThreshold
        }
    }

    /// One request as it arrived.
    public struct Submission: Sendable {
        public var format: CMRequestFormat
        public var body: [UInt8]
        public var query: [(name: String, value: String)]
        /// `X-CM-PRODUCTTOKEN`.
        public var headerToken: String?
        public var idempotencyKey: String?
        /// Method and path, part of the idempotency digest.
        public var target: String

        public init(format: CMRequestFormat, body: [UInt8] = [], query: [(name: String, value: String)] = [],
                    headerToken: String? = nil, idempotencyKey: String? = nil, target: String) {
            self.format = format
            self.body = body
            self.query = query
            self.headerToken = headerToken
            self.idempotencyKey = idempotencyKey
            self.target = target
        }
    }

    public struct Reply: Sendable, Hashable, Error {
        public var status: Int
        public var contentType: String
        public var body: [UInt8]
    }

    let directory: any SenderDirectory
    let ledger: any MessageLedger
    let scheduler: Scheduler
    /// Starts spooled recipients; nil: nothing is spooled.
    let drainer: SpoolDrainer?
    let policies: PolicySet
    let authenticator: ProductTokenAuthenticator
    let now: @Sendable () -> Timestamp
    let configuration: Configuration
    let logger: Logger
    private let gate = IdempotencyGate()
    private let decodingLane = CMBodyDecodingLane()

    public init(directory: any SenderDirectory, ledger: any MessageLedger, scheduler: Scheduler, drainer: SpoolDrainer? = nil,
                policies: PolicySet, authenticator: ProductTokenAuthenticator, now: @escaping @Sendable () -> Timestamp,
                configuration: Configuration = Configuration(), logger: Logger = .discarding) {
        self.directory = directory
        self.ledger = ledger
        self.scheduler = scheduler
        self.drainer = drainer
        self.policies = policies
        self.authenticator = authenticator
        self.now = now
        self.configuration = configuration
        self.logger = logger
    }

    /// Decodes, authenticates and processes one request. A body over 64 KiB is decoded off the cooperative
    /// pool (``CMBodyDecodingLane``), so it cannot hold a thread the engine needs while it is read.
    public func submit(_ submission: Submission) async -> Reply {
        let result: Result<CMSubmission, CMRequestError>
        switch submission.format {
        case .json:
            result = await decodingLane.decode(submission.body) { body in
                Result { () throws(CMRequestError) in try CMCodec.decodeJSON(body) }
            }
        case .xml:
            result = await decodingLane.decode(submission.body) { body in
                Result { () throws(CMRequestError) in try CMCodec.decodeXML(body) }
            }
        case .get:
            result = Result { () throws(CMRequestError) in try CMCodec.decodeQuery(submission.query) }
        }
        let decoded: CMSubmission
        switch result {
        case .success(let submission): decoded = submission
        case .failure(let error): return failure(error, format: submission.format)
        }
        let account: Account
        switch authenticate(decoded.productToken ?? submission.headerToken) {
        case .success(let found): account = found
        case .failure(let error): return failure(error, format: submission.format)
        }
        guard let key = submission.idempotencyKey else {
            return await process(decoded, account: account, idempotency: nil)
        }
        guard Self.isValidIdempotencyKey(key) else {
            return failure(CMRequestError(code: .invalidField,
                                          details: "Idempotency-Key must be 1-255 printable ASCII characters"),
                           format: submission.format)
        }
        let digest = Digest.hex(Digest.hash(.sha256, Array(submission.target.utf8) + [0] + submission.body
                                                + Array(submission.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&").utf8)))
        let gateKey = account.productToken.text + " " + key
        await gate.acquire(gateKey)
        defer { Task { await gate.release(gateKey) } }
        do {
            if let stored = try ledger.idempotentResponse(account: account.productToken, key: key) {
                guard stored.requestDigest == digest else {
                    var reply = failure(CMRequestError(code: .invalidField,
                                                       details: "Idempotency-Key \(key) was used for a different request"),
                                        format: submission.format)
                    reply.status = 422
                    return reply
                }
                return Reply(status: stored.status, contentType: stored.contentType, body: stored.body)
            }
        } catch {
            logger.error("idempotency lookup failed", ["error": .string("\(error)")])
            return internalFailure(format: submission.format)
        }
        return await process(decoded, account: account, idempotency: (key, digest))
    }

    static func isValidIdempotencyKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 255 && key.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    private func authenticate(_ tokenText: String?) -> Result<Account, CMRequestError> {
        guard let tokenText, !tokenText.trimmingASCIISpaces().isEmpty else {
            return .failure(CMRequestError(code: .authenticationFailed, details: "No product token was given"))
        }
        guard let token = ProductToken(tokenText) else {
            return .failure(CMRequestError(code: .productTokenIncorrect, details: "The product token is not a valid GUID"))
        }
        do {
            switch try authenticator.authenticate(token) {
            case .authenticated(let account): return .success(account)
            case .unknown: return .failure(CMRequestError(code: .authenticationFailed, details: "No account found for the given authentication"))
            case .disabled: return .failure(CMRequestError(code: .authenticationFailed, details: "The account is disabled"))
            }
        } catch {
            logger.error("account lookup failed", ["error": .string("\(error)")])
            return .failure(CMRequestError(code: .internalError, details: "Internal error"))
        }
    }

    // MARK: Replies

    func failure(_ error: CMRequestError, format: CMRequestFormat) -> Reply {
        switch format {
        case .json:
            let encoded = CMResponseEncoder.jsonFailure(error)
            return Reply(status: encoded.status, contentType: "application/json", body: encoded.body)
        case .xml, .get:
            let encoded = CMResponseEncoder.plainFailure(error)
            return Reply(status: encoded.status, contentType: "text/plain; charset=utf-8", body: encoded.body)
        }
    }

    func internalFailure(format: CMRequestFormat) -> Reply {
        var reply = failure(CMRequestError(code: .internalError, details: "Internal error; nothing was stored"), format: format)
        reply.status = 500
        return reply
    }
}
