import TandemCore
import TandemCrypto
import TandemEngine

/// The CM MESSAGES gateway behind its three wire forms, as an adapter over ``MessageIntake``: decodes the
/// request, authenticates the account, hands each valid `msg` to the intake as a ``SendCommand``, and maps
/// the intake's outcome back into CM's reply lines and codes. The intake does everything else (routing,
/// `fallbackFor`, spooling, idempotency, the commit); an `Accepted` line is durable.
///
/// CM's rules on top of the intake's:
/// - the product token comes from the body (or query) and else from `X-CM-PRODUCTTOKEN`; missing or
///   unknown → 101, malformed → 103, disabled account → 101;
/// - an `appKey` of another account → 403 (``MessageRejection/unknownApp(_:)``); other message-level
///   refusals → 305; a recipient refused by the account's country rule → 401;
/// - XML and GET carry no per-message results: any rejected `msg` or recipient rejects the whole request
///   and nothing is stored;
/// - with an `Idempotency-Key` (1–255 printable ASCII characters, else 305), a retry of the same request
///   returns the first reply byte for byte; the same key with a different request → HTTP 422.
public final class CMGatewayService: Sendable {
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

    public typealias Reply = WireReply

    let intake: MessageIntake
    let ledger: any MessageLedger
    let authenticator: ProductTokenAuthenticator
    let logger: Logger
    private let decodingLane = CMBodyDecodingLane()

    public init(intake: MessageIntake, ledger: any MessageLedger, authenticator: ProductTokenAuthenticator,
                logger: Logger = .discarding) {
        self.intake = intake
        self.ledger = ledger
        self.authenticator = authenticator
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
        switch await authenticate(decoded.productToken ?? submission.headerToken) {
        case .success(let found): account = found
        case .failure(let error): return failure(error, format: submission.format)
        }
        var claim: IdempotencyClaim?
        if let key = submission.idempotencyKey {
            let query = submission.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            guard let valid = IdempotencyClaim.request(key: key, target: submission.target, body: submission.body, query: query) else {
                return failure(CMRequestError(code: .invalidField,
                                              details: "Idempotency-Key must be 1-255 printable ASCII characters"),
                               format: submission.format)
            }
            claim = valid
        }
        return await process(decoded, account: account, idempotency: claim)
    }

    private func authenticate(_ tokenText: String?) async -> Result<Account, CMRequestError> {
        guard let tokenText, !tokenText.trimmingASCIISpaces().isEmpty else {
            return .failure(CMRequestError(code: .authenticationFailed, details: "No product token was given"))
        }
        guard let token = ProductToken(tokenText) else {
            return .failure(CMRequestError(code: .productTokenIncorrect, details: "The product token is not a valid GUID"))
        }
        do {
            switch try await authenticator.authenticate(token) {
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

    /// A cluster node that cannot take messages now (no partition yet, or one lost mid-commit): 503, answered with
    /// `Retry-After`, nothing stored.
    func unavailableFailure(format: CMRequestFormat) -> Reply {
        var reply = failure(CMRequestError(code: .internalError, details: "This server cannot take messages right now; nothing was stored; retry"),
                            format: format)
        reply.status = 503
        return reply
    }

    func internalFailure(format: CMRequestFormat) -> Reply {
        var reply = failure(CMRequestError(code: .internalError, details: "Internal error; nothing was stored"), format: format)
        reply.status = 500
        return reply
    }
}
