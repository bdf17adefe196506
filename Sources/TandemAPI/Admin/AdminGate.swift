import TandemCore
import TandemHTTP

/// The admin token check of the routes added beside ``AdminAppsEndpoint`` (message search, the dashboard's
/// metrics): the same rules, the same answers.
///
/// Without a configured token every route is 403 (off); a missing or wrong `Authorization: Bearer` token is
/// 401 with `WWW-Authenticate: Bearer realm="admin"`, compared in constant time and logged without the token.
struct AdminGate: Sendable {
    private let token: [UInt8]?
    private let logger: Logger

    /// - Parameter token: nil or empty turns the routes off.
    init(token: String?, logger: Logger) {
        self.token = token.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        self.logger = logger
    }

    var isEnabled: Bool { token != nil }

    /// nil when the request carries the token; else the refusal to send.
    func refusal(_ request: Request) -> Response? {
        guard let token else { return AdminFailure(.forbidden, AdminAppsEndpoint.disabledMessage).response }
        let presented = request.headers["authorization"].flatMap(Self.bearer) ?? ""
        guard ConstantTime.equals(Array(presented.utf8), token) else {
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
