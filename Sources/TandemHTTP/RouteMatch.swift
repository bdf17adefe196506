/// The outcome of routing one request.
public enum RouteMatch: Sendable {
    /// A route matched: its pattern, its handler and the decoded `{name}` values.
    case matched(route: String, handler: Handler, parameters: [String: String])
    /// No route pattern matches the path under any method.
    case notFound
    /// The path matches at least one pattern, but none registered for the method.
    /// `allowed` is sorted by name and includes `HEAD` whenever `GET` is allowed.
    case methodNotAllowed(allowed: [HTTPMethod])
}
