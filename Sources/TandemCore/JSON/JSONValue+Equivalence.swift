extension JSONValue {
    /// Whether two values mean the same JSON: numbers compare by value (`9` equals `9.0` and `9e0`),
    /// object members regardless of order. For tests and comparisons, not for the wire.
    ///
    /// Not guaranteed: exactness beyond `Double` (two numbers that round to the same `Double` are equal);
    /// objects with duplicate keys compare as their last member for each key.
    public func isEquivalent(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.object(let left), .object(let right)):
            let l = Self.lastMembers(left), r = Self.lastMembers(right)
            guard l.count == r.count else { return false }
            return l.allSatisfy { key, value in r[key].map { value.isEquivalent(to: $0) } ?? false }
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.isEquivalent(to: $1) }
        case (.string(let left), .string(let right)):
            return left == right
        case (.number(let left), .number(let right)):
            return left == right || (Double(left) != nil && Double(left) == Double(right))
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.null, .null):
            return true
        case (.object, _), (.array, _), (.string, _), (.number, _), (.bool, _), (.null, _):
            return false
        }
    }

    private static func lastMembers(_ members: [JSONMember]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for member in members { out[member.key] = member.value }
        return out
    }
}
