/// One segment of a route pattern.
enum RouteSegment: Sendable, Equatable {
    case literal(String)
    case parameter(String)

    /// `{name}` (non-empty name) is a parameter; anything else is a literal.
    init(_ text: Substring) {
        if text.count > 2, text.hasPrefix("{"), text.hasSuffix("}") {
            self = .parameter(String(text.dropFirst().dropLast()))
        } else {
            self = .literal(String(text))
        }
    }
}
