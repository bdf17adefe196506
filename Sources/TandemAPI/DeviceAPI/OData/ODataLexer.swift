import TandemCore

/// Splits a `$filter` value into tokens, one at a time.
///
/// Whitespace is space, tab, CR, LF and `+` (outside quotes): the value arrives percent-decoded, and
/// whether the server turned a form-encoded `+` into a space or not, a bare `+` means nothing else in
/// this grammar. Inside quotes every character is taken as it is.
struct ODataLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// The next token; `.end` (again and again) once the text is used up. Tokens are made on demand, so
    /// the parser reports the leftmost problem, lexical or not.
    mutating func next() throws(ODataError) -> ODataToken {
        while index < scalars.count, Self.isSpace(scalars[index]) { index += 1 }
        let start = index
        guard index < scalars.count else { return ODataToken(kind: .end, position: start, text: "") }
        let scalar = scalars[index]
        switch scalar {
        case "(":
            index += 1
            return ODataToken(kind: .openParenthesis, position: start, text: "(")
        case ")":
            index += 1
            return ODataToken(kind: .closeParenthesis, position: start, text: ")")
        case "'":
            let content = try quoted()
            return ODataToken(kind: .literal(.string(content)), position: start, text: spelling(from: start))
        case "-" where index + 1 < scalars.count && Self.isDigit(scalars[index + 1]), "0"..."9":
            return try number()
        case _ where Self.isWordStart(scalar):
            while index < scalars.count, Self.isWordPart(scalars[index]) { index += 1 }
            let word = spelling(from: start)
            if index < scalars.count, scalars[index] == "'" {
                return try typedLiteral(prefix: word, start: start)
            }
            return ODataToken(kind: .word(word), position: start, text: word)
        default:
            throw .malformed(.filter, "unexpected character '\(Character(scalar))'", position: start,
                             hint: Self.hint(for: scalar))
        }
    }

    /// The body of a quoted literal starting at `index` (which is on the opening quote); `''` is one quote.
    private mutating func quoted() throws(ODataError) -> String {
        let opening = index
        index += 1
        var content = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == "'" {
                guard index < scalars.count, scalars[index] == "'" else { return String(content) }
                index += 1
            }
            content.append(scalar)
        }
        throw .malformed(.filter, "unterminated string literal", position: opening,
                         hint: "close it with ' and write a quote inside it as ''")
    }

    private mutating func typedLiteral(prefix: String, start: Int) throws(ODataError) -> ODataToken {
        let content = try quoted()
        let text = spelling(from: start)
        switch prefix {
        case "datetime", "DateTime":
            do throws(ODataDateTime.Problem) {
                let timestamp = try ODataDateTime.parse(content)
                return ODataToken(kind: .literal(.dateTime(timestamp)), position: start, text: text)
            } catch {
                throw Self.dateTimeError(error, text: text, position: start)
            }
        case "guid":
            guard let guid = GUID(content) else {
                throw .malformed(.filter, "malformed guid literal \(text)", position: start,
                                 hint: "expected 8-4-4-4-12 hexadecimal digits")
            }
            return ODataToken(kind: .literal(.guid(guid)), position: start, text: text)
        default:
            throw .malformed(.filter, "unsupported literal type '\(prefix)'", position: start,
                             hint: "supported literals: 'text', integers, datetime'…', guid'…'")
        }
    }

    private static func dateTimeError(_ problem: ODataDateTime.Problem, text: String, position: Int) -> ODataError {
        switch problem {
        case .malformed:
            .malformed(.filter, "malformed DateTime literal \(text)", position: position,
                       hint: "expected yyyy-MM-ddTHH:mm[:ss[.fff]][Z|±hh:mm]")
        case .outOfRange:
            .malformed(.filter, "DateTime literal \(text) is not a valid date and time", position: position)
        case .subMillisecond:
            .malformed(.filter, "DateTime literal \(text) is more precise than a millisecond", position: position)
        }
    }

    /// An integer (`42`, `-7`, `42L`); decimals, doubles and other suffixes are refused by name.
    private mutating func number() throws(ODataError) -> ODataToken {
        let start = index
        if scalars[index] == "-" { index += 1 }
        while index < scalars.count, Self.isDigit(scalars[index]) { index += 1 }
        let digits = spelling(from: start)
        if index < scalars.count, scalars[index] == "L" || scalars[index] == "l",
           index + 1 == scalars.count || !Self.isWordPart(scalars[index + 1]) {
            index += 1
        } else if index < scalars.count, Self.isWordPart(scalars[index]) || scalars[index] == "." {
            while index < scalars.count, Self.isWordPart(scalars[index]) || scalars[index] == "." { index += 1 }
            throw .malformed(.filter, "unsupported numeric literal '\(spelling(from: start))'", position: start,
                             hint: "only integers are supported")
        }
        guard let value = Int64(digits) else {
            throw .malformed(.filter, "integer literal '\(digits)' is out of range", position: start)
        }
        return ODataToken(kind: .literal(.integer(value)), position: start, text: spelling(from: start))
    }

    private func spelling(from start: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<index])
        return String(view)
    }

    private static func hint(for scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "=", "<", ">", "!": "comparison operators are eq, ne, gt, ge, lt, le"
        case "&", "|": "logical operators are and, or, not"
        case "\"": "string literals are in single quotes"
        case "/": "navigation paths are not supported"
        default: nil
        }
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\n" || scalar == "+"
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
    }

    private static func isWordPart(_ scalar: Unicode.Scalar) -> Bool { isWordStart(scalar) || isDigit(scalar) }
}
