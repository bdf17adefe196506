/// One token of `$filter`, with its position (a 0-based Unicode scalar offset) and source spelling.
struct ODataToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case openParenthesis
        case closeParenthesis
        /// A name: a field, a keyword (`and`, `eq`, `not`), or something unsupported (`substringof`).
        case word(String)
        case literal(ODataLiteral)
        case end
    }

    let kind: Kind
    let position: Int
    let text: String
}
