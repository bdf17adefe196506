import TandemCore
import TandemHTTP

/// Why an admin request was refused: the status and a sentence for the operator, sent as `{"error":"…"}`.
///
/// Messages may quote what the request sent (a path, a key) but never a secret the server holds.
struct AdminFailure: Error, Sendable, Hashable {
    let status: HTTPStatus
    let message: String

    init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> AdminFailure { AdminFailure(.badRequest, message) }
    static func notFound(_ message: String) -> AdminFailure { AdminFailure(.notFound, message) }
    static func conflict(_ message: String) -> AdminFailure { AdminFailure(.conflict, message) }
    /// The store failed; the details go to the server log, not to the client.
    static let storeFailed = AdminFailure(.internalServerError, "the store failed; the server log has the details")

    var response: Response {
        AdminJSON.response(status, .object([JSONMember(key: "error", value: .string(message))]))
    }
}
