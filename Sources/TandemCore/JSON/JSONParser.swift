/// Where and why a JSON text is not well-formed.
public struct JSONSyntaxError: Error, Sendable, Hashable {
    public let offset: Int
    public let problem: String
}

/// A strict RFC 8259 parser into `JSONValue`, written for request bodies from untrusted senders.
///
/// Guaranteed: the input is valid UTF-8 in every string (else an error, never a replacement character);
/// escapes are decoded, `\u` surrogate pairs combined and lone surrogates refused; control characters in
/// strings, trailing commas, comments, leading zeros, `NaN` and content after the value are refused;
/// nesting is limited to `maximumDepth`, so the parser's recursion is bounded; a document holds at most
/// `maximumValues` values (object members' values, array elements and the root), which bounds the tree an
/// 8 MiB body can make (`[0,0,…]` would be four million values) and so the time and memory of reading it.
/// A leading UTF-8 byte order mark is skipped.
/// Not guaranteed: anything about duplicate keys (kept, in order, for the caller to judge) or the range
/// of numbers (kept as text).
public struct JSONParser {
    public static let maximumDepth = 64
    /// Over twice what 8 MiB of CM requests with 1,000 `{"number": …}` recipients per `msg` hold.
    public static let maximumValues = 1_000_000

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var valueCount = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    public static func parse(_ input: [UInt8]) -> Result<JSONValue, JSONSyntaxError> {
        input.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer)
            do throws(JSONSyntaxError) {
                if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { parser.index = 3 }
                let value = try parser.parseValue(depth: 1)
                parser.skipWhitespace()
                guard parser.index == buffer.count else {
                    throw parser.failure("unexpected \(parser.describeNext()) after the end of the document")
                }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
    }

    private func failure(_ problem: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, problem: problem) }

    /// The byte at the index as a reader would name it: `'x'`, `byte 0xC3`, or `the end of file`.
    private func describeNext() -> String {
        guard index < bytes.count else { return "the end of file" }
        let byte = bytes[index]
        switch byte {
        case 0x20...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("expected a value, got the end of file") }
        valueCount += 1
        guard valueCount <= Self.maximumValues else { throw failure("the document has more than \(Self.maximumValues) values") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "/"): throw failure("comments are not JSON (write a \"_key\": \"comment\" entry instead)")
        case UInt8(ascii: "'"): throw failure("strings take double quotes")
        default: throw failure("expected a value, got \(describeNext())")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        index += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        members.reserveCapacity(4)  // most objects here are small: one allocation instead of growing 1 → 2 → 4
        var comma: Int?
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                if let comma, index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    throw JSONSyntaxError(offset: comma, problem: "trailing comma before '}'")
                }
                throw failure("expected a key in double quotes, got \(describeNext())")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' after the key, got \(describeNext())")
            }
            index += 1
            members.append(JSONMember(key: key, value: try parseValue(depth: depth + 1)))
            skipWhitespace()
            switch index < bytes.count ? bytes[index] : 0 {
            case UInt8(ascii: ","): comma = index; index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw failure("expected ',' or '}' after a member, got \(describeNext())")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch index < bytes.count ? bytes[index] : 0 {
            case UInt8(ascii: ","):
                let comma = index
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    throw JSONSyntaxError(offset: comma, problem: "trailing comma before ']'")
                }
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw failure("expected ',' or ']' after an element, got \(describeNext())")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                  UnsafeBufferPointer(start: word.utf8Start, count: count)) else {
            throw failure("expected a value, got \(describeNext())")
        }
        index += count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, returned as its text.
    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit, got \(describeNext())") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("numbers do not start with 0") }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    /// A string starting at the opening quote; the index ends after the closing quote.
    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: raw, as: UTF8.self) }
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw JSONSyntaxError(offset: start, problem: "a string is not valid UTF-8")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            if byte < 0x20 { throw controlCharacter(byte) }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        throw failure("unterminated string")
    }

    /// The slow path: the string has escapes. `index` is at the first backslash.
    private mutating func parseEscapedString(from start: Int) throws(JSONSyntaxError) -> String {
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw JSONSyntaxError(offset: start, problem: "a string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(to: &out)
                default:
                    index -= 1
                    throw failure("invalid escape \\\(describeNext())")
                }
            case 0x00..<0x20:
                throw controlCharacter(byte)
            default:
                out.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    private func controlCharacter(_ byte: UInt8) -> JSONSyntaxError {
        failure(byte == 0x0A ? "line break inside a string (missing '\"'?)" : "control character inside a string (escape it)")
    }

    /// After `\u`: four hex digits, and for a high surrogate the `\uDC00`–`\uDFFF` that must follow.
    private mutating func appendUnicodeEscape(to out: inout [UInt8]) throws(JSONSyntaxError) {
        let first = try hex4()
        var value = UInt32(first)
        if (0xD800...0xDBFF).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("unpaired UTF-16 surrogate in a \\u escape")
            }
            index += 2
            let second = try hex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("unpaired UTF-16 surrogate in a \\u escape") }
            value = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw failure("unpaired UTF-16 surrogate in a \\u escape")
        }
        guard let scalar = Unicode.Scalar(value) else { throw failure("invalid \\u escape") }
        UTF8.encode(scalar) { out.append($0) }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("expected four hex digits after \\u") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hex digits after \\u")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
