import TandemCore
import TandemHTTP

/// The admin API's token check, for its own routes and those beside it (message search, the dashboard's
/// metrics, where the dashboard's read-only token is accepted beside the admin token).
///
/// Without a configured token every route is 403 (off); a missing or wrong `Authorization: Bearer` token is
/// 401 with `WWW-Authenticate: Bearer realm="admin"`, compared in constant time with every accepted token (no
/// early exit: the time does not tell which one came close) and logged without the token.
struct AdminGate: Sendable {
    private let tokens: [[UInt8]]
    private let logger: Logger
    private let disabledMessage: String

    /// - Parameters:
    ///   - tokens: the accepted tokens; nil and empty ones are left out, and with none the routes are off.
    ///   - disabledMessage: the 403's explanation while they are off.
    init(tokens: [String?], logger: Logger, disabledMessage: String = DashboardEndpoint.disabledMessage) {
        self.tokens = tokens.compactMap { $0.flatMap { $0.isEmpty ? nil : Array($0.utf8) } }
        self.logger = logger
        self.disabledMessage = disabledMessage
    }

    var isEnabled: Bool { !tokens.isEmpty }

    /// nil when the request carries an accepted token; else the refusal to send.
    func refusal(_ request: Request) -> Response? {
        guard isEnabled else { return AdminFailure(.forbidden, disabledMessage).response }
        let presented = Array((request.headers["authorization"].flatMap(Self.bearer) ?? "").utf8)
        let accepted = tokens.reduce(false) { found, token in ConstantTime.equals(presented, token) || found }
        guard accepted else {
            logger.warning("admin token refused", ["method": .string(request.method.rawValue), "path": .string(request.path),
                                                   "remoteAddress": .string(request.remoteAddress ?? "")])
            var response = AdminFailure(.unauthorized, "a valid admin bearer token is required").response
            response.headers.add(name: "WWW-Authenticate", value: #"Bearer realm="admin""#)
            return response
        }
        return nil
    }

    private static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingASCIISpaces()
    }
}
