extension Response {
    /// The JSON error bodies the server itself produces: `{"error":"<message>"}`.
    /// `message` must not need JSON escaping (callers pass constants).
    static func serverError(_ status: HTTPStatus, _ message: String) -> Response {
        .json(status, "{\"error\":\"\(message)\"}")
    }

    static func payloadTooLarge(limit: Int) -> Response {
        .json(.payloadTooLarge, "{\"error\":\"payload too large\",\"limit\":\(limit)}")
    }

    static func methodNotAllowed(_ allowed: [HTTPMethod]) -> Response {
        var response = serverError(.methodNotAllowed, "method not allowed")
        response.headers.add(name: "Allow", value: allowed.map(\.rawValue).joined(separator: ", "))
        return response
    }
}
