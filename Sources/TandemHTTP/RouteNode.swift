/// One node of the router's segment trie.
struct RouteNode: Sendable {
    /// A route registered at a node.
    struct Entry: Sendable {
        let pattern: String
        /// Names of the pattern's `{name}` segments, in path order.
        let parameterNames: [String]
        let handler: Handler
    }

    var literals: [String: RouteNode] = [:]
    /// The `{parameter}` child; an array of at most one element because a struct cannot contain itself directly.
    var parameterChild: [RouteNode] = []
    var entries: [HTTPMethod: Entry] = [:]

    mutating func insert(_ segments: ArraySlice<RouteSegment>, method: HTTPMethod, entry: Entry) {
        guard let first = segments.first else {
            entries[method] = entry
            return
        }
        let rest = segments.dropFirst()
        switch first {
        case .literal(let text):
            literals[text, default: RouteNode()].insert(rest, method: method, entry: entry)
        case .parameter:
            if parameterChild.isEmpty { parameterChild.append(RouteNode()) }
            parameterChild[0].insert(rest, method: method, entry: entry)
        }
    }

    /// Depth-first search preferring literal children; collects captured parameter values.
    /// When a node matches the path but not the method, its methods are added to `allowed`.
    func find(
        _ segments: [String], at index: Int, method: HTTPMethod,
        captured: inout [String], allowed: inout Set<HTTPMethod>
    ) -> Entry? {
        if index == segments.count {
            guard !entries.isEmpty else { return nil }
            if let entry = entries[method] { return entry }
            if method == .HEAD, let entry = entries[.GET] { return entry }
            allowed.formUnion(entries.keys)
            if entries[.GET] != nil { allowed.insert(.HEAD) }
            return nil
        }
        let segment = segments[index]
        if let child = literals[segment],
           let found = child.find(segments, at: index + 1, method: method, captured: &captured, allowed: &allowed) {
            return found
        }
        if let child = parameterChild.first {
            captured.append(segment)
            if let found = child.find(segments, at: index + 1, method: method, captured: &captured, allowed: &allowed) {
                return found
            }
            captured.removeLast()
        }
        return nil
    }
}
