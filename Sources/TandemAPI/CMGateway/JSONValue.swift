/// A parsed JSON value that keeps what the MESSAGES codec needs and `JSONSerialization` loses: object
/// members in order (duplicates included), and numbers as their literal text (so `8` and `8.0` differ and
/// nothing is rounded).
///
/// XML and query requests are turned into the same shape (text as `.string`, repeated elements as
/// `.array`), so one validator serves all three forms.
enum JSONValue: Sendable, Hashable {
    case object([JSONMember])
    case array([JSONValue])
    case string(String)
    /// The literal, checked against the JSON number grammar.
    case number(String)
    case bool(Bool)
    case null

    /// For error details: `a string`, `a number`, …
    var kindDescription: String {
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
struct JSONMember: Sendable, Hashable {
    let key: String
    let value: JSONValue
}

extension [JSONMember] {
    /// The values whose key equals `name` ignoring ASCII case, in order.
    func values(named name: String) -> [JSONValue] {
        compactMap { ASCIICase.equal($0.key, name) ? $0.value : nil }
    }
}

/// ASCII case-insensitive comparison without allocating (`Unicode` letters compare exactly).
enum ASCIICase {
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?): if fold(a) != fold(b) { return false }
            default: return false
            }
        }
    }

    @inline(__always)
    static func fold(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}
