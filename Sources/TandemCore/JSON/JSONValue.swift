/// A parsed JSON value that keeps what the CM MESSAGES codec (and push custom data) needs and `JSONSerialization` loses: object
/// members in order (duplicates included), and numbers as their literal text (so `8` and `8.0` differ and
/// nothing is rounded).
///
/// XML and query requests are turned into the same shape (text as `.string`, repeated elements as
/// `.array`), so one validator serves all three forms.
public enum JSONValue: Sendable, Hashable {
    case object([JSONMember])
    case array([JSONValue])
    case string(String)
    /// The literal, checked against the JSON number grammar.
    case number(String)
    case bool(Bool)
    case null

    /// For error details: `a string`, `a number`, …
    public var kindDescription: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// One `"key": value` of an object.
public struct JSONMember: Sendable, Hashable, Codable {
    public let key: String
    public let value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}
