/// A strict RFC 8259 syntax check that says where a document goes wrong, as `line:column: problem`: ``JSONParser``'s
/// verdict, its byte offset turned into a line and column.
///
/// Foundation's parser on Linux accepts a trailing comma and reports no positions, so configuration and
/// policy files pass through this check before `JSONDecoder` sees them.
/// Refused: trailing commas, comments, single quotes, `NaN`/`Infinity`, leading zeros, control characters
/// in strings, anything after the top-level value. Lines and columns count from 1; a column counts bytes.
/// Not checked: duplicate keys. Also refused, as by ``JSONParser``: lone UTF-16 surrogates, strings that are not
/// UTF-8, nesting deeper than ``JSONParser/maximumDepth``.
public enum JSONSyntax {
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let line: Int
        public let column: Int
        public let problem: String
        public var description: String { "\(line):\(column): \(problem)" }
    }

    /// Nil when `bytes` is one well-formed JSON value (surrounded by whitespace at most).
    public static func check<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Failure? {
        let text = Array(bytes)
        guard case .failure(let error) = JSONParser.parse(text) else { return nil }
        let before = text[..<min(error.offset, text.count)]
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        return Failure(line: before.count { $0 == 0x0A } + 1, column: error.offset - lineStart + 1, problem: error.problem)
    }
}
