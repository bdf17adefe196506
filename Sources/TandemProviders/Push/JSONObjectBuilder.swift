import TandemCore

/// An ordered JSON object built member by member.
struct JSONObjectBuilder {
    private(set) var members: [JSONMember] = []

    var isEmpty: Bool { members.isEmpty }
    var value: JSONValue { .object(members) }

    /// Appends `key: value`; nil adds nothing.
    mutating func add(_ key: String, _ value: JSONValue?) {
        if let value { members.append(JSONMember(key: key, value: value)) }
    }
}
