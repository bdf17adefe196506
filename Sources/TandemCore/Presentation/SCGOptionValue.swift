/// One value of an SCG request's `options` map. The map is documented as string → string, but senders
/// (and SCG's own examples) also send JSON numbers and booleans (`25`, `true`, `0.80`); all three arrive
/// here, and each option converts what it can.
public enum SCGOptionValue: Sendable, Hashable {
    case string(String)
    /// The number's literal text, as sent (checked against the JSON number grammar by the JSON parser).
    case number(String)
    case bool(Bool)

    /// A value of a parsed `options` object; nil for `null`, arrays and objects (which no option takes).
    public init?(json: JSONValue) {
        switch json {
        case .string(let text): self = .string(text)
        case .number(let literal): self = .number(literal)
        case .bool(let value): self = .bool(value)
        case .object, .array, .null: return nil
        }
    }

    /// For text options: a string as is, a number as its literal, a boolean as `true`/`false`.
    var text: String {
        switch self {
        case .string(let text), .number(let text): text
        case .bool(let value): value ? "true" : "false"
        }
    }

    /// A JSON number literal: a number as sent, or a string holding exactly one (`"9.0"`, not `" 9"`).
    var numberLiteral: String? {
        switch self {
        case .number(let literal): literal
        case .string(let text):
            if case .success(.number(let literal)) = JSONParser.parse(Array(text.utf8)), literal == text { literal } else { nil }
        case .bool: nil
        }
    }

    /// A whole number written without fraction or exponent (`4`, `"4"`; not `4.0`).
    var integer: Int64? {
        guard let literal = numberLiteral, literal.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) })
        else { return nil }
        return Int64(literal)
    }

    /// `true`/`false`, as a boolean or as exactly that text.
    var boolean: Bool? {
        switch self {
        case .bool(let value): value
        case .string("true"): true
        case .string("false"): false
        case .string, .number: nil
        }
    }
}
