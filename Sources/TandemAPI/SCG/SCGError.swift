import TandemCore

/// An SCG API error as its clients receive it: an HTTP status and
/// `{"error":{"code":"INVALID_FIELD","field":"to[1]","description":"…"}}` (`field` only when one field is at
/// fault). Syniverse's SDKs act on the HTTP status alone (a 401 makes them refresh their token elsewhere);
/// the body is for people reading logs. Codes are a closed set (``SCGErrorCode``) and keep their meaning.
public struct SCGError: Error, Sendable, Hashable {
    public let code: SCGErrorCode
    /// The request field at fault (`to[1]`, `options.push:badge`), if one is.
    public let field: String?
    public let description: String

    public init(_ code: SCGErrorCode, field: String? = nil, _ description: String) {
        self.code = code
        self.field = field
        self.description = description
    }

    /// A bad value of one field (400).
    static func field(_ name: String, _ description: String) -> SCGError { SCGError(.invalidField, field: name, description) }

    public var status: Int { code.status }

    /// The JSON body.
    public var body: [UInt8] {
        var out = "{\"error\":{\"code\":" + JSONText.quoted(code.rawValue)
        if let field { out += ",\"field\":" + JSONText.quoted(field) }
        out += ",\"description\":" + JSONText.quoted(description) + "}}"
        return Array(out.utf8)
    }

    public var reply: WireReply { WireReply(status: status, contentType: "application/json", body: body) }
}

/// What went wrong, with its HTTP status.
public enum SCGErrorCode: String, Sendable, Hashable, CaseIterable {
    /// No `Authorization: Bearer` token, or one that is unknown, revoked or of a disabled account (401).
    case unauthorized = "UNAUTHORIZED"
    /// A valid token of a disabled account (403: refreshing the token will not help).
    case accountDisabled = "ACCOUNT_DISABLED"
    /// The body is not a JSON object (400).
    case malformedRequest = "MALFORMED_REQUEST"
    /// A field is missing, repeated, of the wrong type or has a value that is refused (400).
    case invalidField = "INVALID_FIELD"
    /// No such message request or message of this account (404), or no such route.
    case notFound = "NOT_FOUND"
    /// A request with this `Idempotency-Key` is still being stored (409): retry later.
    case requestInProgress = "REQUEST_IN_PROGRESS"
    /// The `Idempotency-Key` was used for a different request (422).
    case idempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
    /// The store failed; nothing was changed (500; details only in the server log).
    case internalError = "INTERNAL_ERROR"
    /// A cluster node cannot take the request now (503, with `Retry-After`): nothing was changed; retry.
    case serviceUnavailable = "SERVICE_UNAVAILABLE"

    public var status: Int {
        switch self {
        case .unauthorized: 401
        case .accountDisabled: 403
        case .malformedRequest, .invalidField: 400
        case .notFound: 404
        case .requestInProgress: 409
        case .idempotencyKeyReused: 422
        case .internalError: 500
        case .serviceUnavailable: 503
        }
    }
}
