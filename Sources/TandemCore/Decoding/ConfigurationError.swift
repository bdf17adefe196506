import Foundation

/// A problem with a configuration or policy file, reported as `file: key: problem`, or as
/// `file:line:column: problem` when the file is not well-formed JSON.
///
/// `key` is a dotted path into the document (`database.commitWindow`, `fallback.afterNoRead`), or `(document)`
/// when the problem is with the whole file (unreadable, not JSON, not an object).
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let file: String
    public let key: String
    public let problem: String
    /// Where a syntax error is (line and column from 1); nil for every other problem.
    public let position: (line: Int, column: Int)?

    public init(file: String, key: String, problem: String) {
        self.file = file
        self.key = key.isEmpty ? "(document)" : key
        self.problem = problem
        self.position = nil
    }

    public init(file: String, syntax: JSONSyntax.Failure) {
        self.file = file
        self.key = "(document)"
        self.problem = syntax.problem
        self.position = (syntax.line, syntax.column)
    }

    public var description: String {
        guard let position else { return "\(file): \(key): \(problem)" }
        return "\(file):\(position.line):\(position.column): \(problem)"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.file == rhs.file && lhs.key == rhs.key && lhs.problem == rhs.problem
            && lhs.position?.line == rhs.position?.line && lhs.position?.column == rhs.position?.column
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(file)
        hasher.combine(key)
        hasher.combine(problem)
        hasher.combine(position?.line)
        hasher.combine(position?.column)
    }

    /// Translates a `DecodingError` from `StrictJSON.decode` into the `file: key: problem` form.
    public init(file: String, decodingError: DecodingError) {
        switch decodingError {
        case .keyNotFound(let key, let context):
            self.init(file: file, key: Self.path(context.codingPath + [key]), problem: "missing")
        case .typeMismatch(let type, let context):
            self.init(file: file, key: Self.path(context.codingPath),
                      problem: "expected \(Self.describe(type))")
        case .valueNotFound(let type, let context):
            self.init(file: file, key: Self.path(context.codingPath),
                      problem: "expected \(Self.describe(type)), got null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty, context.underlyingError != nil || context.debugDescription.contains("JSON") {
                let detail = context.underlyingError.map { " (\(Self.syntaxDetail($0)))" } ?? ""
                self.init(file: file, key: "", problem: "not valid JSON" + detail)
            } else {
                self.init(file: file, key: Self.path(context.codingPath), problem: context.debugDescription)
            }
        @unknown default:
            self.init(file: file, key: "", problem: "\(decodingError)")
        }
    }

    /// `a.b[2].c` from a coding path.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var out = ""
        for key in codingPath {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return out
    }

    private static func describe(_ type: Any.Type) -> String {
        if type is String.Type { return "a string" }
        if type is Int.Type || type is Int64.Type || type is UInt16.Type { return "an integer" }
        if type is Double.Type { return "a number" }
        if type is Bool.Type { return "true or false" }
        return String(describing: type).hasPrefix("Array") ? "an array" : "an object"
    }

    private static func syntaxDetail(_ error: any Error) -> String {
        let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        return text ?? "syntax error"
    }
}
