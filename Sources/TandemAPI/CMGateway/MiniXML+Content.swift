extension MiniXML.Parser {
    /// Children of `element` up to and including its end tag.
    mutating func parseContent(of element: inout MiniXML.Element, depth: Int, start: Int) throws(MiniXML.SyntaxError) {
        var text: [UInt8] = []
        func flush(_ text: inout [UInt8], into element: inout MiniXML.Element) {
            guard !text.isEmpty else { return }
            element.children.append(.text(String(decoding: text, as: UTF8.self)))
            text.removeAll(keepingCapacity: true)
        }
        while true {
            guard !atEnd else { throw MiniXML.SyntaxError(offset: start, problem: "element <\(element.name)> is not closed") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if starts(with: "</") {
                    flush(&text, into: &element)
                    index += 2
                    let name = try parseName()
                    guard name == element.name else {
                        throw failure("end tag </\(name)> does not match <\(element.name)>")
                    }
                    skipWhitespace()
                    guard !atEnd, bytes[index] == UInt8(ascii: ">") else { throw failure("expected '>' in </\(name)>") }
                    index += 1
                    return
                } else if starts(with: "<!--") {
                    try skipComment()
                } else if starts(with: "<![CDATA[") {
                    try appendCDATA(to: &text)
                } else if starts(with: "<!") {
                    throw declarationFailure()
                } else if starts(with: "<?") {
                    try skipProcessingInstruction(allowDeclaration: false)
                } else {
                    flush(&text, into: &element)
                    element.children.append(.element(try parseElement(depth: depth + 1)))
                }
            } else if byte == UInt8(ascii: "&") {
                try appendReference(to: &text)
            } else if byte == 0x0D {
                // XML end-of-line handling: CR LF and a lone CR both become LF.
                text.append(0x0A)
                index += 1
                if !atEnd, bytes[index] == 0x0A { index += 1 }
            } else if byte < 0x20, byte != 0x09, byte != 0x0A {
                throw failure("control character in the text of <\(element.name)>")
            } else {
                text.append(byte)
                index += 1
            }
        }
    }

    mutating func appendCDATA(to text: inout [UInt8]) throws(MiniXML.SyntaxError) {
        let start = index
        index += 9
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "]"), bytes[index + 1] == UInt8(ascii: "]"), bytes[index + 2] == UInt8(ascii: ">") {
                index += 3
                return
            }
            if bytes[index] == 0x0D {
                text.append(0x0A)
                if bytes[index + 1] == 0x0A { index += 1 }
            } else {
                text.append(bytes[index])
            }
            index += 1
        }
        throw MiniXML.SyntaxError(offset: start, problem: "unterminated CDATA section")
    }

    /// `&lt; &gt; &amp; &quot; &apos; &#NNN; &#xHHH;` at the index; anything else is refused.
    mutating func appendReference(to text: inout [UInt8]) throws(MiniXML.SyntaxError) {
        let start = index
        guard let semicolon = bytes[index...].prefix(16).firstIndex(of: UInt8(ascii: ";")) else {
            throw failure("'&' must start an entity reference such as &amp;")
        }
        let body = Array(bytes[(index + 1)..<semicolon])
        let name = String(decoding: body, as: UTF8.self)
        switch name {
        case "lt": text.append(UInt8(ascii: "<"))
        case "gt": text.append(UInt8(ascii: ">"))
        case "amp": text.append(UInt8(ascii: "&"))
        case "quot": text.append(UInt8(ascii: "\""))
        case "apos": text.append(UInt8(ascii: "'"))
        default:
            guard body.first == UInt8(ascii: "#") else {
                throw MiniXML.SyntaxError(offset: start, problem:
                    "undefined entity &\(name); (only &lt; &gt; &amp; &quot; &apos; and &#…; are accepted)")
            }
            let hex = body.count > 1 && body[1] == UInt8(ascii: "x")
            let digits = String(decoding: body.dropFirst(hex ? 2 : 1), as: UTF8.self)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }),
                  let value = UInt32(digits, radix: hex ? 16 : 10),
                  let scalar = Unicode.Scalar(value), Self.isXMLChar(value) else {
                throw MiniXML.SyntaxError(offset: start, problem: "invalid character reference &\(name);")
            }
            UTF8.encode(scalar) { text.append($0) }
        }
        index = semicolon + 1
    }

    /// XML 1.0 `Char`: tab, LF, CR, and U+0020 and above except surrogates, U+FFFE and U+FFFF.
    static func isXMLChar(_ value: UInt32) -> Bool {
        value == 0x09 || value == 0x0A || value == 0x0D || (0x20...0xD7FF).contains(value)
            || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
    }
}
