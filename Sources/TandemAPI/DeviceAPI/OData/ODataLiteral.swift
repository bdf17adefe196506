import TandemCore

/// A literal as written in `$filter`, before it is checked against the field it is compared with.
enum ODataLiteral: Sendable, Hashable {
    /// `'text'`, with `''` standing for one quote.
    case string(String)
    /// `datetime'2026-11-21T10:00:00'` (or `DateTime'…'`, as the CM SDK spells it).
    case dateTime(Timestamp)
    /// `42`, `-7`, `42L`.
    case integer(Int64)
    /// `guid'7af65395-2dc9-45c4-aa58-a7f53e33c4f3'`.
    case guid(GUID)

    /// For type errors: `cannot compare DateTime with a string literal`.
    var kindDescription: String {
        switch self {
        case .string: "a string literal"
        case .dateTime: "a DateTime literal"
        case .integer: "an integer literal"
        case .guid: "a guid literal"
        }
    }
}
