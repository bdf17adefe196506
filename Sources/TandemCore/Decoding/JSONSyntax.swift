/// A strict RFC 8259 syntax check that says where a document goes wrong, as `line:column: problem`.
///
/// Foundation's parser on Linux accepts a trailing comma and reports no positions, so configuration and
/// policy files pass through this check before `JSONDecoder` sees them. It only checks; it builds nothing.
/// Refused: trailing commas, comments, single quotes, `NaN`/`Infinity`, leading zeros, control characters
/// in strings, anything after the top-level value. Lines and columns count from 1; a column counts bytes.
/// Not checked: duplicate keys, and whether `\u` escapes pair up as UTF-16 surrogates.
public enum JSONSyntax {
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let line: Int
        public let column: Int
        public let problem: String
        public var description: String { "\(line):\(column): \(problem)" }
    }

    /// Nil when `bytes` is one well-formed JSON value (surrounded by whitespace at most).
    public static func check<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Failure? {
        var reader = Reader(Array(bytes))
        do throws(Failure) {
            reader.skipWhitespace()
            try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.atEnd else { throw reader.failure("unexpected \(reader.describeNext()) after the end of the document") }
            return nil
        } catch {
            return error
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var lineStart = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }
        var next: UInt8? { atEnd ? nil : bytes[index] }

        func failure(_ problem: String) -> Failure {
            Failure(line: line, column: index - lineStart + 1, problem: problem)
        }

        func describeNext() -> String {
            guard let byte = next else { return "end of file" }
            switch byte {
            case 0x20...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
            default: return "byte 0x" + String(byte, radix: 16, uppercase: true)
            }
        }

        mutating func skipWhitespace() {
            while let byte = next {
                switch byte {
                case 0x20, 0x09, 0x0D: index += 1
                case 0x0A:
                    index += 1
                    line += 1
                    lineStart = index
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(Failure) {
            guard depth < 512 else { throw failure("nested more than 512 levels deep") }
            guard let byte = next else { throw failure("expected a value, got the end of file") }
            switch byte {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "/"): throw failure("comments are not JSON (write a \"_key\": \"comment\" entry instead)")
            case UInt8(ascii: "'"): throw failure("strings take double quotes")
            default: throw failure("expected a value, got \(describeNext())")
            }
        }

        mutating func object(depth: Int) throws(Failure) {
            index += 1
            skipWhitespace()
            if next == UInt8(ascii: "}") { index += 1; return }
            var comma: Failure?
            while true {
                guard next == UInt8(ascii: "\"") else {
                    if let comma, next == UInt8(ascii: "}") { throw comma }
                    throw failure("expected a key in double quotes, got \(describeNext())")
                }
                try string()
                skipWhitespace()
                guard next == UInt8(ascii: ":") else { throw failure("expected ':' after the key, got \(describeNext())") }
                index += 1
                skipWhitespace()
                try value(depth: depth + 1)
                skipWhitespace()
                switch next {
                case UInt8(ascii: ","):
                    comma = failure("trailing comma before '}'")
                    index += 1
                    skipWhitespace()
                case UInt8(ascii: "}"):
                    index += 1
                    return
                default:
                    throw failure("expected ',' or '}' after a member, got \(describeNext())")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) {
            index += 1
            skipWhitespace()
            if next == UInt8(ascii: "]") { index += 1; return }
            var comma: Failure?
            while true {
                if let comma, next == UInt8(ascii: "]") { throw comma }
                try value(depth: depth + 1)
                skipWhitespace()
                switch next {
                case UInt8(ascii: ","):
                    comma = failure("trailing comma before ']'")
                    index += 1
                    skipWhitespace()
                case UInt8(ascii: "]"):
                    index += 1
                    return
                default:
                    throw failure("expected ',' or ']' after an element, got \(describeNext())")
                }
            }
        }

        mutating func string() throws(Failure) {
            index += 1
            while let byte = next {
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return
                case UInt8(ascii: "\\"):
                    index += 1
                    switch next {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 1
                    case UInt8(ascii: "u"):
                        index += 1
                        for _ in 0..<4 {
                            guard let digit = next, Self.isHexDigit(digit) else {
                                throw failure("expected four hex digits after \\u")
                            }
                            index += 1
                        }
                    default:
                        throw failure("invalid escape \\\(describeNext())")
                    }
                case 0x00..<0x20:
                    throw failure(byte == 0x0A ? "line break inside a string (missing '\"'?)"
                                               : "control character inside a string (escape it)")
                default:
                    index += 1
                }
            }
            throw failure("unterminated string")
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let expected = Array(UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
            guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw failure("expected a value, got \(describeNext())")
            }
            index += expected.count
        }

        mutating func number() throws(Failure) {
            if next == UInt8(ascii: "-") { index += 1 }
            guard let first = next, Self.isDigit(first) else { throw failure("expected a digit, got \(describeNext())") }
            index += 1
            if first == UInt8(ascii: "0"), let following = next, Self.isDigit(following) {
                throw failure("numbers do not start with 0")
            }
            skipDigits()
            if next == UInt8(ascii: ".") {
                index += 1
                guard let digit = next, Self.isDigit(digit) else { throw failure("expected a digit after '.'") }
                skipDigits()
            }
            if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
                index += 1
                if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
                guard let digit = next, Self.isDigit(digit) else { throw failure("expected a digit in the exponent") }
                skipDigits()
            }
        }

        mutating func skipDigits() {
            while let byte = next, Self.isDigit(byte) { index += 1 }
        }

        static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}
