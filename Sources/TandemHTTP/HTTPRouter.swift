/// Maps (method, path) to a handler.
///
/// Patterns are `/`-separated segments, each either a literal or `{name}`
/// (which matches exactly one non-separator segment, possibly empty — it does
/// NOT match across `/`). Matching is exact and case-sensitive; a trailing
/// slash is significant (`/a/` does not match `/a`). When several patterns
/// match, literal segments beat parameters from left to right, but a pattern
/// registered for the request's method beats one that is not (so
/// `POST /a/{x}` serves `POST /a/b` even though `GET /a/b` exists).
/// `HEAD` is served by the `GET` route unless a `HEAD` route exists.
/// There are no wildcards, regexes or per-parameter constraints.
public struct HTTPRouter: Sendable {
    private var root = RouteNode()

    public init() {}

    /// Registers `handler` for `method` on `pattern`. A pattern not starting with
    /// `/` is treated as if it did. Registering the same method and pattern shape
    /// again replaces the earlier handler.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: Handler) {
        let normalized = pattern.hasPrefix("/") ? pattern : "/" + pattern
        let segments = RequestTarget.split(normalized[...], RouteSegment.init)
        let names = segments.compactMap { segment -> String? in
            if case .parameter(let name) = segment { return name }
            return nil
        }
        let entry = RouteNode.Entry(pattern: normalized, parameterNames: names, handler: handler)
        root.insert(segments[...], method: method, entry: entry)
    }

    /// Routes an already percent-decoded `path` (without query). Splits on `/`,
    /// so a decoded `/` inside a segment cannot be told apart here; the server
    /// routes on segments decoded individually instead.
    public func match(_ method: HTTPMethod, path: String) -> RouteMatch {
        match(method, segments: RequestTarget.split(path[...]) { String($0) })
    }

    func match(_ method: HTTPMethod, segments: [String]) -> RouteMatch {
        var captured: [String] = []
        var allowed = Set<HTTPMethod>()
        if let entry = root.find(segments, at: 0, method: method, captured: &captured, allowed: &allowed) {
            var parameters: [String: String] = [:]
            if !entry.parameterNames.isEmpty {
                parameters.reserveCapacity(entry.parameterNames.count)
                for (name, value) in zip(entry.parameterNames, captured) { parameters[name] = value }
            }
            return .matched(route: entry.pattern, handler: entry.handler, parameters: parameters)
        }
        if allowed.isEmpty { return .notFound }
        return .methodNotAllowed(allowed: allowed.sorted { $0.rawValue < $1.rawValue })
    }
}
