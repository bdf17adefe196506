import TandemCore

/// Parses and type-checks a `$filter` value (grammar on ``ODataParser``) into an ``ODataExpression``.
///
/// Recursive descent, one method per precedence level. Nesting (parentheses and `not`) is limited to
/// ``maximumDepth`` and the number of comparisons to ``maximumComparisons``, so that a hostile filter can
/// neither exhaust the stack here nor in the evaluator, nor exceed SQLite's expression depth.
struct ODataFilterParser {
    static let maximumDepth = 64
    static let maximumComparisons = 256

    private static let logicalKeywords: Set<String> = ["and", "or", "not"]
    private static let unsupportedOperators: Set<String> = ["add", "sub", "mul", "div", "mod", "has", "in"]
    private static let unsupportedLiterals: Set<String> = ["true", "false", "null"]

    private var lexer: ODataLexer
    private var current: ODataToken
    private var lookahead: ODataToken?
    private var depth = 0
    private var comparisons = 0

    static func parse(_ text: String) throws(ODataError) -> ODataExpression {
        var parser = try ODataFilterParser(text)
        guard parser.current.kind != .end else { throw .malformed(.filter, "empty value", position: nil) }
        let expression = try parser.orExpression()
        guard parser.current.kind == .end else {
            throw parser.unexpected(expecting: "and, or or the end of the filter")
        }
        return expression
    }

    private init(_ text: String) throws(ODataError) {
        lexer = ODataLexer(text)
        current = try lexer.next()
    }

    private mutating func advance() throws(ODataError) {
        if let lookahead {
            current = lookahead
            self.lookahead = nil
        } else {
            current = try lexer.next()
        }
    }

    /// The token after `current`, without consuming it.
    private mutating func peek() throws(ODataError) -> ODataToken {
        if let lookahead { return lookahead }
        let token = try lexer.next()
        lookahead = token
        return token
    }

    private func isWord(_ word: String) -> Bool { current.kind == .word(word) }

    // MARK: - Precedence levels: or < and < comparison < not

    private mutating func orExpression() throws(ODataError) -> ODataExpression {
        var left = try andExpression()
        while isWord("or") {
            try advance()
            left = .or(left, try andExpression())
        }
        return left
    }

    private mutating func andExpression() throws(ODataError) -> ODataExpression {
        var left = try unaryExpression()
        while isWord("and") {
            try advance()
            left = .and(left, try unaryExpression())
        }
        return left
    }

    /// `not` binds tighter than a comparison, and there are no Boolean fields, so its operand is a
    /// parenthesised expression or another `not`: `not Status eq 'Sent'` would negate `Status`.
    private mutating func unaryExpression() throws(ODataError) -> ODataExpression {
        guard isWord("not") else { return try primaryExpression() }
        let notToken = current
        try advance()
        guard current.kind == .openParenthesis || isWord("not") else {
            throw .malformed(.filter, "'not' must be followed by a parenthesized expression",
                             position: notToken.position, hint: "write not (Status eq 'Sent')")
        }
        try enter(at: notToken)
        defer { depth -= 1 }
        return .not(try unaryExpression())
    }

    private mutating func primaryExpression() throws(ODataError) -> ODataExpression {
        guard current.kind == .openParenthesis else { return .comparison(try comparison()) }
        let opening = current
        try advance()
        try enter(at: opening)
        defer { depth -= 1 }
        let expression = try orExpression()
        switch current.kind {
        case .closeParenthesis:
            try advance()
            return expression
        case .end:
            throw .malformed(.filter, "unbalanced parentheses: '(' is never closed", position: opening.position)
        case .openParenthesis, .word, .literal:
            throw unexpected(expecting: "and, or or ')'")
        }
    }

    private mutating func enter(at token: ODataToken) throws(ODataError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw .malformed(.filter, "nesting deeper than \(Self.maximumDepth) levels", position: token.position)
        }
    }

    // MARK: - Comparisons

    private enum Operand {
        case field(ODataField, ODataToken)
        case literal(ODataLiteral, ODataToken)
    }

    private mutating func comparison() throws(ODataError) -> ODataComparison {
        let left = try operand()
        let operatorToken = current
        guard case .word(let word) = operatorToken.kind, let op = ODataOperator(rawValue: word) else {
            throw operatorError(operatorToken)
        }
        try advance()
        let right = try operand()
        comparisons += 1
        guard comparisons <= Self.maximumComparisons else {
            throw .malformed(.filter, "more than \(Self.maximumComparisons) comparisons",
                             position: operatorToken.position)
        }
        switch (left, right) {
        case (.field(let field, let fieldToken), .literal(let literal, let literalToken)):
            return try Self.typed(field, op, literal, fieldToken: fieldToken, literalToken: literalToken)
        case (.literal(let literal, let literalToken), .field(let field, let fieldToken)):
            return try Self.typed(field, op.flipped, literal, fieldToken: fieldToken, literalToken: literalToken)
        case (.field(_, let first), .field):
            throw .malformed(.filter, "comparing two fields is not supported", position: first.position,
                             hint: "compare a field with a literal")
        case (.literal(_, let first), .literal):
            throw .malformed(.filter, "comparing two literals is not supported", position: first.position,
                             hint: "compare a field with a literal")
        }
    }

    private mutating func operand() throws(ODataError) -> Operand {
        let token = current
        switch token.kind {
        case .literal(let literal):
            try advance()
            return .literal(literal, token)
        case .word(let word):
            if let field = ODataField.named(word) {
                try advance()
                return .field(field, token)
            }
            // A lexical error after an unknown word must not hide the word itself (leftmost problem first).
            if !Self.logicalKeywords.contains(word), (try? peek())?.kind == .openParenthesis {
                throw .malformed(.filter, "unsupported function '\(word)'", position: token.position)
            }
            if Self.unsupportedLiterals.contains(word) {
                throw .malformed(.filter, "unsupported literal '\(word)'", position: token.position)
            }
            if Self.logicalKeywords.contains(word) || ODataOperator(rawValue: word) != nil {
                throw .malformed(.filter, "expected a field or a literal, found '\(word)'", position: token.position)
            }
            throw .malformed(.filter, "unknown field '\(word)'", position: token.position,
                             hint: ODataField.caseInsensitiveMatch(word).map { "did you mean '\($0.rawValue)'?" })
        case .openParenthesis, .closeParenthesis, .end:
            throw .malformed(.filter, "expected a field or a literal, found \(Self.describe(token))",
                             position: token.position)
        }
    }

    private func operatorError(_ token: ODataToken) -> ODataError {
        if case .word(let word) = token.kind {
            if Self.unsupportedOperators.contains(word) {
                return .malformed(.filter, "unsupported operator '\(word)'", position: token.position)
            }
            if let op = ODataOperator(rawValue: word.lowercased()) {
                return .malformed(.filter, "unknown operator '\(word)'", position: token.position,
                                  hint: "operators are lower case: \(op.rawValue)")
            }
        }
        return .malformed(.filter, "expected a comparison operator (eq, ne, gt, ge, lt, le), found "
                          + Self.describe(token), position: token.position)
    }

    /// The error for a token that cannot come next; `expecting` says what could.
    private func unexpected(expecting: String) -> ODataError {
        let token = current
        switch token.kind {
        case .closeParenthesis:
            return .malformed(.filter, "unbalanced parentheses: ')' has no matching '('", position: token.position)
        case .word(let word) where ODataOperator(rawValue: word) != nil:
            return .malformed(.filter, "unexpected '\(word)'", position: token.position,
                              hint: "comparisons cannot be chained; join them with and or or")
        case .word(let word) where Self.logicalKeywords.contains(word.lowercased()):
            return .malformed(.filter, "unexpected '\(word)'", position: token.position,
                              hint: "keywords are lower case: \(word.lowercased())")
        case .word, .literal, .openParenthesis, .end:
            return .malformed(.filter, "unexpected \(Self.describe(token))", position: token.position,
                              hint: "expected \(expecting)")
        }
    }

    private static func describe(_ token: ODataToken) -> String {
        switch token.kind {
        case .end: "the end of the filter"
        case .literal: "literal \(token.text)"
        case .openParenthesis, .closeParenthesis, .word: "'\(token.text)'"
        }
    }

    // MARK: - Type rules

    /// `field op literal` as a typed comparison, or the type error naming both sides.
    private static func typed(_ field: ODataField, _ op: ODataOperator, _ literal: ODataLiteral,
                              fieldToken: ODataToken, literalToken: ODataToken) throws(ODataError) -> ODataComparison {
        func mismatch(_ hint: String? = nil) -> ODataError {
            .malformed(.filter, "cannot compare \(field.rawValue) with \(literal.kindDescription)",
                       position: literalToken.position, hint: hint)
        }
        switch field {
        case .id:
            switch literal {
            case .guid(let guid): return .id(op, guid)
            case .string(let text):
                guard let guid = GUID(text) else {
                    throw .malformed(.filter, "ID must be compared with a GUID, and \(literalToken.text) is not one",
                                     position: literalToken.position)
                }
                return .id(op, guid)
            case .integer, .dateTime: throw mismatch("write guid'…' or a quoted GUID")
            }
        case .updateID:
            switch literal {
            case .integer(let value): return .updateID(op, value)
            // The API hands UpdateIDs out as JSON strings, so a quoted number is what apps have at hand.
            case .string(let text):
                guard let value = Int64(text), value >= 0 else {
                    throw .malformed(.filter, "UpdateID must be compared with a number, and \(literalToken.text) is not one",
                                     position: literalToken.position)
                }
                return .updateID(op, value)
            case .guid, .dateTime: throw mismatch("write the number, with or without quotes")
            }
        case .sender:
            guard case .string(let text) = literal else { throw mismatch("write the sender in single quotes") }
            return .sender(op, text)
        case .dateTime:
            guard case .dateTime(let timestamp) = literal else { throw mismatch("write datetime'2026-11-21T10:00:00'") }
            return .dateTime(op, timestamp)
        case .status:
            let equality: ODataEqualityOperator
            switch op {
            case .eq: equality = .eq
            case .ne: equality = .ne
            case .gt, .ge, .lt, .le:
                throw .malformed(.filter, "Status cannot be compared with '\(op.rawValue)'", position: fieldToken.position,
                                 hint: "statuses have no order; use eq or ne")
            }
            guard case .string(let text) = literal else { throw mismatch("write the status in single quotes") }
            guard let status = AppMessageStatus(wireName: text) else {
                throw .malformed(.filter, "unknown status \(literalToken.text)", position: literalToken.position,
                                 hint: "statuses are \(AppMessageStatus.wireNames)")
            }
            return .status(equality, status)
        case .recipient, .body:
            throw .malformed(.filter, "field '\(field.rawValue)' cannot be filtered", position: fieldToken.position,
                             hint: "filterable fields: \(ODataField.names { $0.isFilterable })")
        }
    }
}
