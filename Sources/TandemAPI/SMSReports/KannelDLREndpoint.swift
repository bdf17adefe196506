import TandemCore
import TandemHTTP

/// `GET <path>` (default `/kannel/dlr`): where Kannel's smsbox calls the dlr-url of each SMS Tandem sent
/// through it (`KannelSMSSender` in TandemProviders builds that URL: `ref`, `type=%d`, `reply=%A`,
/// `time=%T`, `to=%p`, and the shared `token` when one is configured).
///
/// A final DLR (types 1, 2, 16; see ``KannelDLR/meaning``) becomes one `SMSDeliveryReport` by reference,
/// handed to the report handler; the answer is `200 OK` only once the handler has returned (the report is
/// recorded), so a crash before that leaves Kannel's callback unanswered rather than the report lost.
/// Intermediate DLRs (4, 8) are answered `200` and reported to no one. A malformed callback gets `400` with
/// the reason as text, a missing or wrong token `403`.
///
/// A multipart SMS is one reference at Kannel, which calls back once per part: each DLR is reported as it
/// comes, all under that reference, and the engine combines them (the first final one decides).
///
/// Not guaranteed: that Kannel retries a callback that failed (that is its `http-request-retry` setting);
/// that the reference was ever issued (the engine matches it); de-duplication of repeated callbacks.
public struct KannelDLREndpoint: Sendable {
    public struct Settings: Sendable, Hashable {
        /// The route, matching the path of the sender's `dlrURL`.
        public var path = "/kannel/dlr"
        /// The shared secret Kannel's callbacks must carry as `token` (the sender's `dlrToken`); nil for none.
        public var token: String?
        /// `SMSDeliveryReport.provider`: the sender's `providerName`.
        public var providerName = "kannel"

        public init(path: String = "/kannel/dlr", token: String? = nil, providerName: String = "kannel") {
            self.path = path
            self.token = token
            self.providerName = providerName
        }
    }

    private let settings: Settings
    private let onReports: SMSReportHandler
    private let logger: Logger

    public init(settings: Settings = Settings(), onReports: @escaping SMSReportHandler, logger: Logger = .discarding) {
        self.settings = settings
        self.onReports = onReports
        self.logger = logger
    }

    public func register(in router: inout HTTPRouter) {
        let endpoint = self
        router.add(.GET, settings.path, .async { await endpoint.respond(to: $0) })
    }

    func respond(to request: Request) async -> Response {
        let dlr: KannelDLR
        switch KannelDLRCodec.decode(request.query, expectedToken: settings.token) {
        case .success(let decoded):
            dlr = decoded
        case .failure(let error):
            logger.warning("kannel DLR refused", ["reason": .string(error.description)])
            return .text(error == .wrongToken ? .forbidden : .badRequest, error.description + "\n")
        }
        switch dlr.meaning {
        case .final(let outcome):
            do {
                try await onReports([SMSDeliveryReport(provider: settings.providerName, reference: dlr.reference, outcome: outcome,
                                                       detail: dlr.detail)])
            } catch {
                // Not recorded: Kannel retries a DLR callback that fails.
                logger.error("kannel DLR not recorded", ["reference": .string(dlr.reference), "error": .string("\(error)")])
                return .text(.serviceUnavailable, "DLR not recorded; try again\n")
            }
            logger.debug("kannel DLR reported", ["reference": .string(dlr.reference), "type": .int(Int64(dlr.type)),
                                                 "outcome": .string(outcome.rawValue)])
            return .text(.ok, "OK\n")
        case .intermediate, nil:
            logger.debug("kannel DLR intermediate", ["reference": .string(dlr.reference), "type": .int(Int64(dlr.type))])
            return .text(.ok, "OK (intermediate, not reported)\n")
        }
    }
}
